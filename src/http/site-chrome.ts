/**
 * The site's chrome, written once: the `<head>` lines every page shares and the site header with
 * its main navigation. The 404 page (not-found-page.ts) writes it at run time; the build
 * (scripts/build-web.mjs) writes it into the static pages of src/web in place of their
 * `<!-- include: head -->` and `<!-- include: header [/path] -->` markers. It lives here, on the
 * server's side, because src/http may not import the pages' browser code (scripts/layers.json).
 */

/** The `<head>` lines of every page, before its own title. */
export const SITE_HEAD = `<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/site.css">`;

const NAV: ReadonlyArray<readonly [href: string, label: string]> = [
  ["/verify", "Verify"],
  ["/console", "Auditor console"],
  ["/docs", "API docs"],
];

/** The site header; the link to `current` (the page's own path) is marked as the current page. */
export function siteHeader(current?: string): string {
  const links = NAV.map(
    ([href, label]) => `    <a href="${href}"${href === current ? ' aria-current="page"' : ""}>${label}</a>`,
  );
  return `<header class="site"><div class="bar">
  <a class="brand" href="/">vCon <span>Archivist</span></a>
  <nav aria-label="Main">
${links.join("\n")}
  </nav>
</div></header>`;
}
