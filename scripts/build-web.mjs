// Builds the pages: the verifier (src/verify, on the formats of src/formats: ledger, mmr, cose,
// tlog) and the look-ups (src/lookup) bundled for the browser as they are (they reach no `node:`
// module and no Buffer, so nothing stands in for them), into dist/web/verify.js (the /verify page) and dist/web/console.js (the
// /console page), the API reference's starter (docs.js), next to copies of the static pages and
// the shared stylesheet. The static pages' shared chrome (head lines, site header) is written once,
// in src/http/site-chrome.ts (the 404 page writes it too), and put in place of their include markers.
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
/** `<!-- include: head -->` and `<!-- include: header [/current-path] -->`, each on a line of its own. */
const includes = { head: () => chrome.SITE_HEAD, header: (current) => chrome.siteHeader(current) };
const expand = (name, html) =>
  html.replace(/^<!-- include: (\S+)(?: (\S+))? -->$/gm, (_, part, arg) => {
    if (!Object.hasOwn(includes, part)) throw new Error(`${name}: no partial "${part}" to include`);
    return includes[part](arg);
  });

const pages = ["verify.html", "console.html", "index.html", "docs.html"];
for (const name of pages)
  writeFileSync(join(out, name), expand(name, readFileSync(join(root, "src", "web", name), "utf8")));
copyFileSync(join(root, "src", "web", "site.css"), join(out, "site.css"));
const statics = [...pages, "site.css"];
process.stderr.write(
  `built dist/web: ${Object.keys(bundles)
    .map((n) => `${n}.js`)
    .join(", ")}, ${statics.join(", ")}\n`,
);
