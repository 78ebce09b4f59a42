// Builds the pages: the verifier (src/verify, on the formats of src/formats: ledger, mmr, cose,
// tlog) and the look-ups (src/lookup) bundled for the browser as they are (they reach no `node:`
// module and no Buffer, so nothing stands in for them), into dist/web/verify.js (the /verify page) and dist/web/console.js (the
// /console page), the API reference's starter (docs.js), next to copies of the static pages and
// the shared stylesheet. The static pages' shared chrome (head lines, site header) is written once,
// in src/http/site-chrome.ts (the 404 page writes it too), and put in place of their include markers;
// verification.html shows docs/verification.md, rendered here from the document itself.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "web");
mkdirSync(out, { recursive: true });

const bundles = {
  verify: "src/web/page.ts",
  console: "src/web/console.ts",
  docs: "src/web/docs.ts",
  // The worker both pages verify in, off their thread (served at /verify/verify-worker.js).
  "verify-worker": "src/web/verify-worker.ts",
};
for (const [name, entry] of Object.entries(bundles))
  await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile: join(out, `${name}.js`),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });

// The chrome module is TypeScript: bundled in memory and imported from the bundle's text.
const [chromeModule] = (
  await build({
    absWorkingDir: root,
    entryPoints: ["src/http/site-chrome.ts"],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    logLevel: "warning",
  })
).outputFiles;
const chrome = await import(
  `data:text/javascript;base64,${Buffer.from(chromeModule.text).toString("base64")}`
);
const escapeHtml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * A line's inline Markdown: code spans first (held out behind a private-use character, so nothing
 * inside them is read), then links, bold, italics.
 */
function inline(text) {
  const spans = [];
  const held = text.replace(/`([^`]+)`/g, (_, code) => `\uE000${spans.push(code) - 1}\uE000`);
  return escapeHtml(held)
    .replace(
      /\[([^\]]+)\]\(([^)\s]+)\)/g,
      (_, label, href) => `<a href="${href.replace(/"/g, "&quot;")}">${label}</a>`,
    )
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>")
    .replace(/\uE000(\d+)\uE000/g, (_, i) => `<code>${escapeHtml(spans[Number(i)])}</code>`);
}

/** A table row's cells: split at the pipes outside code spans. */
function cells(line) {
  const out = [""];
  let code = false;
  for (const ch of line.trim().replace(/^\||\|$/g, "")) {
    if (ch === "`") code = !code;
    if (ch === "|" && !code) out.push("");
    else out[out.length - 1] += ch;
  }
  return out.map((c) => c.trim());
}

/**
 * The Markdown this project's documents use (headings, paragraphs, lists, pipe tables, fenced
 * code, inline code, links, emphasis) as HTML, so a page can show a document of docs/ as written
 * there: one source, never a copy to drift. Tables scroll within their box on a phone.
 */
function markdownHtml(markdown) {
  const lines = markdown.split("\n");
  const html = [];
  for (let i = 0; i < lines.length; ) {
    const line = lines[i];
    const fence = /^```(\S*)/.exec(line);
    if (fence) {
      const code = [];
      for (i++; i < lines.length && !lines[i].startsWith("```"); i++) code.push(lines[i]);
      i++;
      html.push(`<pre><code>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6}) (.*)$/.exec(line);
    if (heading) {
      const level = heading[1].length;
      const id = heading[2]
        .toLowerCase()
        .replace(/`/g, "")
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "");
      html.push(`<h${level} id="${id}">${inline(heading[2])}</h${level}>`);
      i++;
      continue;
    }
    if (line.startsWith("|")) {
      const rows = [];
      for (; i < lines.length && lines[i].startsWith("|"); i++) rows.push(cells(lines[i]));
      const [head, , ...body] = rows;
      const tr = (row, tag) => `<tr>${row.map((c) => `<${tag}>${inline(c)}</${tag}>`).join("")}</tr>`;
      html.push(
        `<div class="table-scroll"><table class="doc-table"><thead>${tr(head, "th")}</thead><tbody>${body.map((r) => tr(r, "td")).join("")}</tbody></table></div>`,
      );
      continue;
    }
    if (line.startsWith("- ")) {
      const items = [];
      for (; i < lines.length && (lines[i].startsWith("- ") || /^ {2}\S/.test(lines[i])); i++)
        if (lines[i].startsWith("- ")) items.push(lines[i].slice(2));
        else items[items.length - 1] += ` ${lines[i].trim()}`;
      html.push(`<ul>${items.map((x) => `<li>${inline(x)}</li>`).join("")}</ul>`);
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const paragraph = [];
    for (; i < lines.length && lines[i].trim() !== "" && !/^(```|#{1,6} |\||- )/.test(lines[i]); i++)
      paragraph.push(lines[i].trim());
    html.push(`<p>${inline(paragraph.join(" "))}</p>`);
  }
  return html.join("\n");
}

/**
 * `<!-- include: head -->`, `<!-- include: header [/current-path] -->` and
 * `<!-- include: markdown <docs/file.md> -->` (that document, as HTML), each on a line of its own.
 */
const includes = {
  head: () => chrome.SITE_HEAD,
  header: (current) => chrome.siteHeader(current),
  markdown: (file) => markdownHtml(readFileSync(join(root, file), "utf8")),
};
const expand = (name, html) =>
  html.replace(/^<!-- include: (\S+)(?: (\S+))? -->$/gm, (_, part, arg) => {
    if (!Object.hasOwn(includes, part)) throw new Error(`${name}: no partial "${part}" to include`);
    return includes[part](arg);
  });

const pages = ["verify.html", "console.html", "index.html", "docs.html", "verification.html"];
for (const name of pages)
  writeFileSync(join(out, name), expand(name, readFileSync(join(root, "src", "web", name), "utf8")));
copyFileSync(join(root, "src", "web", "site.css"), join(out, "site.css"));
const statics = [...pages, "site.css"];
process.stderr.write(
  `built dist/web: ${Object.keys(bundles)
    .map((n) => `${n}.js`)
    .join(", ")}, ${statics.join(", ")}\n`,
);
