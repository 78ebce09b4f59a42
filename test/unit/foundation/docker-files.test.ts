import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// No Docker engine runs here: the build files are read for what they say.
const read = (name: string) => readFileSync(new URL(`../../../${name}`, import.meta.url), "utf8");

/** A .dockerignore line as a regular expression over context-relative paths (Docker's glob rules). */
function pattern(line: string): RegExp {
  const glob = line.replace(/^\/+/, "").replace(/\/+$/, "");
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (glob.startsWith("**/", i)) {
      re += "(?:.*/)?";
      i += 2;
    } else if (glob.startsWith("**", i)) {
      re += ".*";
      i += 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** True when Docker leaves `path` out of the build context: the last line matching it or a parent decides. */
function ignored(dockerignore: string, path: string): boolean {
  const lines = dockerignore
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const parts = path.split("/");
  const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
  let out = false;
  for (const line of lines) {
    const negated = line.startsWith("!");
    const re = pattern(negated ? line.slice(1) : line);
    if (prefixes.some((p) => re.test(p))) out = !negated;
  }
  return out;
}

describe(".dockerignore", () => {
  const dockerignore = read(".dockerignore");

  it("keeps a reader's files, secrets, data and test output out of the build context", () => {
    for (const path of [
      "walkthrough/w1/key",
      "walkthrough/conserver-app.json",
      "walkthrough/signing-key.pem",
      "walkthrough/backups/pgdata-2026-11-27/PG_VERSION",
      "signing-key.pem",
      "backups/pgdata-2026-11-27/PG_VERSION",
      "archivist-2026-11-27.dump",
      "keys.tar.gz",
      ".env",
      ".env.local",
      "plugins/conserver/.env",
      "data/bootstrap.json",
      "data/pgdata/PG_VERSION",
      "test-artifacts/screenshots/console.png",
      "bench-results/ci.json",
      "node_modules/fastify/package.json",
      ".git/config",
    ])
      expect(ignored(dockerignore, path), path).toBe(true);
  });

  it("still sends what the image is built from", () => {
    for (const path of [
      "package.json",
      "package-lock.json",
      "src/cli/main.ts",
      "scripts/prepare.mjs",
      "tsconfig.build.json",
    ])
      expect(ignored(dockerignore, path), path).toBe(false);
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);

  it("builds and runs on Node 22 LTS by its exact version, with a build argument for the image's digest", () => {
    expect(froms).toHaveLength(2);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Docker's own ${…}, not a template's
    const image = "node:${NODE_VERSION}-bookworm-slim${NODE_DIGEST}";
    for (const from of froms) expect(from).toBe(image);
    expect(dockerfile).toMatch(/^ARG NODE_VERSION=22\.\d+\.\d+$/m);
    expect(dockerfile).toMatch(/^ARG NODE_DIGEST=$/m);
    expect(dockerfile).toContain("--build-arg NODE_DIGEST=@sha256:");
    expect(dockerfile).not.toMatch(/node:20/);
  });

  it("has what `npm ci` runs (prepare) before the sources are copied", () => {
    const pkg = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
    const before = dockerfile.slice(0, dockerfile.indexOf("RUN npm ci"));
    for (const script of (pkg.scripts.prepare ?? "").match(/scripts\/\S+\.mjs/g) ?? [])
      expect(before).toContain(script);
  });

  it("while the package itself still runs on Node 20 (npm start)", () => {
    const pkg = JSON.parse(read("package.json")) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(">=20.19");
  });
});
