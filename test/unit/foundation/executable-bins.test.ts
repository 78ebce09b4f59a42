import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

// Issue 74: `npm pack` (prepack: scripts/prepare.mjs --clean) rebuilt dist/ with tsc's 0644 and
// `npx archivist` answered "Permission denied". The build scripts run here in a scratch copy, with a
// stand-in for tsc and the page bundler, so the clean path is walked in well under a second.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
};
const executable = (path: string) => (statSync(path).mode & 0o111) === 0o111;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A checkout holding the real build scripts, a source file, and a tsc that writes dist/ as tsc does. */
function scratchCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), "executable-bins-"));
  dirs.push(dir);
  mkdirSync(join(dir, "scripts"));
  for (const s of ["prepare.mjs", "ensure-built.mjs", "executable-bins.mjs"])
    copyFileSync(join(root, "scripts", s), join(dir, "scripts", s));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", bin: pkg.bin }));
  writeFileSync(join(dir, "tsconfig.build.json"), "{}");
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "a.ts"), "export {};\n");
  const tsc = join(dir, "node_modules", "typescript", "bin");
  mkdirSync(tsc, { recursive: true });
  writeFileSync(join(dir, "node_modules", "typescript", "package.json"), '{"type":"commonjs"}');
  const entries = JSON.stringify(Object.values(pkg.bin));
  writeFileSync(
    join(tsc, "tsc"),
    `const fs = require("node:fs"); const path = require("node:path");
for (const e of ${entries}) { fs.rmSync(e, { force: true }); fs.mkdirSync(path.dirname(e), { recursive: true }); fs.writeFileSync(e, "#!/usr/bin/env node\\n", { mode: 0o644 }); }\n`,
  );
  writeFileSync(
    join(dir, "scripts", "build-web.mjs"),
    `import { mkdirSync, writeFileSync } from "node:fs";
mkdirSync("dist/web", { recursive: true }); writeFileSync("dist/web/verify.js", "");\n`,
  );
  return dir;
}

describe("the package's bin entries are executable however dist/ was built", () => {
  it("after prepack's clean build (scripts/prepare.mjs --clean)", () => {
    const dir = scratchCheckout();
    execFileSync(process.execPath, ["scripts/prepare.mjs", "--clean"], { cwd: dir, stdio: "pipe" });
    for (const e of Object.values(pkg.bin)) expect(executable(join(dir, e)), e).toBe(true);
  });

  it("after a dist/ built by hand, the next ensure-built (npm start, npm run demo) mends it", () => {
    const dir = scratchCheckout();
    execFileSync(process.execPath, ["node_modules/typescript/bin/tsc"], { cwd: dir });
    const [entry] = Object.values(pkg.bin) as [string];
    expect(executable(join(dir, entry))).toBe(false);
    execFileSync(process.execPath, ["scripts/ensure-built.mjs"], { cwd: dir, stdio: "pipe" });
    expect(executable(join(dir, entry))).toBe(true);
  });

  it("npm run build marks them after tsc", () => {
    expect(pkg.scripts.build).toMatch(
      /^tsc -p tsconfig\.build\.json && node scripts\/executable-bins\.mjs &&/,
    );
  });

  it("in this checkout's dist/, as it was built (CI: by npm pack's prepack)", () => {
    const main = join(root, pkg.bin.archivist as string);
    expect(statSync(main, { throwIfNoEntry: false }), "dist/ is not built: npm run build").toBeDefined();
    expect(executable(main), `${pkg.bin.archivist} is not executable`).toBe(true);
  });
});
