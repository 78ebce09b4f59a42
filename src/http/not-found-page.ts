const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

/**
 * The 404 a browser gets for a path no route serves: the site's look and its way back, where an
 * API client gets the JSON error body. The path is echoed escaped (it is the visitor's input).
 */
export function notFoundPage(path: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/site.css">
<title>Not found: vCon Archivist</title>
</head>
<body>
<header class="site"><div class="bar">
  <a class="brand" href="/">vCon <span>Archivist</span></a>
  <nav aria-label="Main">
    <a href="/verify">Verify</a>
    <a href="/console">Auditor console</a>
    <a href="/docs">API docs</a>
  </nav>
</div></header>
<main id="main">
  <h1>Page not found</h1>
  <p class="lead">Nothing is served at <code>${escapeHtml(path)}</code>.</p>
  <p>Try the <a href="/">home page</a>, <a href="/verify">verify a file</a>, the
    <a href="/console">auditor console</a> or the <a href="/docs">API reference</a>.</p>
</main>
</body>
</html>
`;
}
