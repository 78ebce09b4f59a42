// npm's `prepare` (after `npm install` in a clone, when installing from git, before `npm pack`) and
// `prepack` (`--clean`: a package holds only what this build made). A git install ships what this
// builds, so dist/ must exist by then; an install without the sources (a Docker dependency layer,
// which copies package.json alone) or without the dev dependencies (`--omit=dev`) has nothing to
// build with, and says so.
import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";

if (!existsSync("src") || !existsSync("tsconfig.build.json")) {
  process.stderr.write("prepare: no sources here, nothing to build\n");
} else if (!existsSync("node_modules/typescript/bin/tsc")) {
  process.stderr.write("prepare: the dev dependencies are not installed, dist/ is not built here\n");
} else {
  if (process.argv.includes("--clean")) rmSync("dist", { recursive: true, force: true });
  execFileSync(process.execPath, ["scripts/ensure-built.mjs"], { stdio: "inherit" });
}
