import { SITE_HEAD, siteHeader } from "./site-chrome.js";

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

/**
 * The 404 a browser gets for a path no route serves: the site's look (the pages' head and header,
 * site-chrome.ts) and its way back, where an API client gets the JSON error body. The path is
 * echoed escaped (it is the visitor's input).
 */
export function notFoundPage(path: string): string {
  return `<!doctype html>
<html lang="en">
<head>
${SITE_HEAD}
<title>Not found: vCon Archivist</title>
</head>
<body>
${siteHeader()}
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
