// tsc writes every file 0644, and `prepack`'s clean build replaces the one npm's install had made
// executable: `npx archivist` then answered "Permission denied" (issue 74). Whatever builds dist/
// calls this after tsc, so the package's bin entries run however they were built.
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Adds the execute bits to each `bin` entry of `root`'s package.json that exists; returns their paths. */
export function markBinsExecutable(root = ".") {
  const { bin = {} } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const paths = typeof bin === "string" ? [bin] : Object.values(bin);
  const marked = [];
  for (const p of paths) {
    const file = join(root, p);
    if (!existsSync(file)) continue;
    chmodSync(file, (statSync(file).mode & 0o7777) | 0o111);
    marked.push(file);
  }
  return marked;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) markBinsExecutable();
