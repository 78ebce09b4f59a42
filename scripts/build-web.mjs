// Builds the pages: the verifier (src/verify, the audit room, with its own ledger, mmr, cose,
// tlog) bundled for the browser as it is (it reaches no `node:` module and no Buffer, so nothing
// stands in for them), into dist/web/verify.js (the /verify page) and dist/web/console.js (the
// /console page), the API reference's starter (docs.js), next to copies of the static pages and
// the shared stylesheet.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "web");
mkdirSync(out, { recursive: true });

const bundles = { verify: "src/web/page.ts", console: "src/web/console.ts", docs: "src/web/docs.ts" };
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
const statics = ["verify.html", "console.html", "index.html", "docs.html", "site.css"];
for (const name of statics) copyFileSync(join(root, "src", "web", name), join(out, name));
process.stderr.write(
  `built dist/web: ${Object.keys(bundles)
    .map((n) => `${n}.js`)
    .join(", ")}, ${statics.join(", ")}\n`,
);
