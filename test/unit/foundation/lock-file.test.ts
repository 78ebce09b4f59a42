import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("../../../", import.meta.url);
const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as Record<
  string,
  Record<string, string>
>;
const lock = JSON.parse(readFileSync(new URL("package-lock.json", root), "utf8")) as {
  packages: Record<
    string,
    { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }
  >;
};

/** Where npm resolves `name` from the package at `from`: its own node_modules, then each ancestor's. */
function resolves(from: string, name: string): boolean {
  let dir = from;
  for (;;) {
    if (lock.packages[`${dir ? `${dir}/` : ""}node_modules/${name}`]) return true;
    if (!dir) return false;
    const up = dir.lastIndexOf("/node_modules/");
    dir = up < 0 ? "" : dir.slice(0, up);
  }
}

// npm ci refuses a lock file that disagrees with package.json, or that lacks an optional package
// of the machine's platform (npm 11 once wrote only the platform it ran on).
describe("package-lock.json", () => {
  it("declares exactly package.json's dependencies", () => {
    const top = lock.packages[""] as Record<string, unknown>;
    // As `npm install` (npm 11.19, the README's first command) writes it: an optional dependency
    // is listed under optionalDependencies only. Listed under dependencies too, as npm once wrote
    // it, a fresh clone's `npm install` rewrites the file and leaves the clone dirty.
    expect(top.dependencies).toEqual(pkg.dependencies);
    expect(top.optionalDependencies).toEqual(pkg.optionalDependencies);
    expect(top.devDependencies).toEqual(pkg.devDependencies);
  });

  it("holds every platform's optional packages, so npm ci installs on any machine", () => {
    const unresolved: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages))
      for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies }))
        if (!resolves(path, name)) unresolved.push(`${path || "(root)"} → ${name}`);
    expect(unresolved).toEqual([]);
  });
});
