import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { satisfies } from "semver";
import { describe, expect, it } from "vitest";

// What `npm pack` (and so `npm publish`, and an install from git) puts in the package, and what a
// consumer's install of it resolves: the package must run on every Node its `engines` admits.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  engines: { node: string };
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  overrides?: Record<string, string>;
};
const OLDEST_NODE = (/^>=\s*(\d+\.\d+(?:\.\d+)?)$/.exec(pkg.engines.node)?.[1] ?? "").replace(
  /^(\d+\.\d+)$/,
  "$1.0",
);

describe("the packed package", () => {
  it("is built when packed or installed from git (prepare), cleanly when packed (prepack)", () => {
    expect(pkg.scripts.prepare).toBe("node scripts/prepare.mjs");
    expect(pkg.scripts.prepack).toBe("node scripts/prepare.mjs --clean");
  });

  it("holds dist and every entry it names, no source map without its source, no benchmarks", () => {
    // dist/ as built (the scripts would rebuild it: `npm run build` first, as .ci/run does).
    expect(existsSync(join(root, "dist/src/cli/main.js")), "dist/ is not built: npm run build").toBe(true);
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
        cwd: root,
        encoding: "utf8",
      }),
    ) as Array<{ files: Array<{ path: string }> }>;
    const files = new Set((packed?.files ?? []).map((f) => f.path));
    const entries = [
      ...Object.values(pkg.bin),
      ...Object.values(pkg.exports).flatMap((e) => (typeof e === "string" ? [e] : Object.values(e))),
    ].map((p) => p.replace(/^\.\//, ""));
    for (const e of entries) expect(files, e).toContain(e);
    expect(files).toContain("dist/web/verify.js");
    const maps = [...files].filter((f) => f.endsWith(".map"));
    // A map names sources (../../src/…ts) the package would have to carry: it carries neither.
    expect(maps).toEqual([]);
    expect([...files].filter((f) => f.startsWith("dist/bench/"))).toEqual([]);
    // Of the plugins' folder, only the files the shipped docs tell users to use: no source.
    expect([...files].filter((f) => /^(src|test|bench)\//.test(f) || /^plugins\/.*\.ts$/.test(f))).toEqual(
      [],
    );
  });

  it("holds the files its shipped docs tell users to use, and its licence", () => {
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
        cwd: root,
        encoding: "utf8",
      }),
    ) as Array<{ files: Array<{ path: string }> }>;
    const files = new Set((packed?.files ?? []).map((f) => f.path));
    for (const f of [
      "LICENSE",
      "conserver.example.yml",
      "plugins/conserver/vcon-server/config.yml",
      "plugins/conserver/vcon-server/access-policy.json",
    ])
      expect(files, f).toContain(f);
    // The demo's sample vCons, where the built demo reads them (demo/source-dir.ts), every one.
    const samples = readdirSync(join(root, "plugins/conserver/demo/vcons")).filter((f) =>
      f.endsWith(".vcon.json"),
    );
    expect(samples.length).toBeGreaterThan(0);
    for (const f of samples) expect(files, f).toContain(`plugins/conserver/demo/vcons/${f}`);
    expect(readFileSync(join(root, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
    expect(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).license).toBe("MIT");
  });
});

describe("the package's dependencies on the oldest Node it admits", () => {
  it("every installed package's engines.node admits it", () => {
    const refused: string[] = [];
    const visit = (dir: string) => {
      for (const name of readdirSync(dir)) {
        if (name.startsWith(".")) continue;
        const path = join(dir, name);
        if (name.startsWith("@")) {
          visit(path);
          continue;
        }
        const manifest = join(path, "package.json");
        if (existsSync(manifest)) {
          const p = JSON.parse(readFileSync(manifest, "utf8")) as {
            version?: string;
            engines?: { node?: string };
          };
          const range = p.engines?.node;
          if (range && !satisfies(OLDEST_NODE, range)) refused.push(`${path} ${p.version}: node ${range}`);
        }
        if (existsSync(join(path, "node_modules"))) visit(join(path, "node_modules"));
      }
    };
    expect(OLDEST_NODE).toMatch(/^20\.\d+\.\d+$/);
    visit(join(root, "node_modules"));
    expect(refused).toEqual([]);
  });

  it("no version it needs is held by `overrides` alone: a consumer's install ignores them", () => {
    // npm applies `overrides` only in the root project: installed as a dependency, fastify's
    // light-my-request resolved to the newest 6.x, whose cookie@2 wants Node 22 (EBADENGINE).
    // A version held back must be a direct dependency, which a consumer's install does follow.
    for (const [name, version] of Object.entries(pkg.overrides ?? {}))
      expect(pkg.dependencies[name], `override ${name}@${version}`).toBe(version);
    expect(pkg.dependencies["light-my-request"]).toBe("6.6.0");
  });
});
