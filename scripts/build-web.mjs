// Builds the /verify page: the core verifier (src/core/verify, ledger, mmr, cose) compiled
// for the browser with node:crypto and Buffer replaced by small shims, into
// dist/web/verify.js, next to a copy of the static page.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "web");
mkdirSync(out, { recursive: true });

await build({
  absWorkingDir: root,
  entryPoints: ["src/web/page.ts"],
  outfile: join(out, "verify.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  alias: {
    "node:crypto": "./src/web/crypto-shim.ts",
    "node:buffer": "./src/web/buffer-shim.ts",
  },
  // Core refers to the global Buffer; the shim supplies it without touching core.
  inject: ["src/web/buffer-shim.ts"],
});
copyFileSync(join(root, "src", "web", "verify.html"), join(out, "verify.html"));
process.stderr.write(`built ${join("dist", "web", "verify.js")} and verify.html\n`);
