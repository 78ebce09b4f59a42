// `npm start` must work on a fresh clone without a separate build step, so this
// compiles once when dist/ is missing or older than the newest source file.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { markBinsExecutable } from "./executable-bins.mjs";

const roots = ["src", "plugins", "bench"];
const marker = "dist/src/cli/main.js";

function newest(dir) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const sourceTime = Math.max(...roots.filter(existsSync).map(newest));
if (!existsSync(marker) || statSync(marker).mtimeMs < sourceTime) {
  process.stderr.write("building (tsc)...\n");
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
    stdio: "inherit",
  });
}
// Every time, not only after a build here: a dist/ built by hand (`npx tsc`) runs too.
markBinsExecutable();
// The /verify page's browser bundle is built with the package too.
if (!existsSync("dist/web/verify.js") || statSync("dist/web/verify.js").mtimeMs < sourceTime) {
  execFileSync(process.execPath, ["scripts/build-web.mjs"], { stdio: "inherit" });
}
