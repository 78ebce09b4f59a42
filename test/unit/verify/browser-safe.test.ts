import { resolve } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

// vcon-archivist/verify is the third party's room: it must run in a browser as it is, with no
// stand-in for Node. This walks the import graph of an entry (esbuild resolves it as a bundler
// would) and names every module that imports a `node:` module, and whether the bundled code
// refers to Node's global Buffer (comments are dropped by minifying, so only code counts).
const repo = resolve(import.meta.dirname, "../../..");

async function nodeReach(
  entry: string,
): Promise<{ nodeImports: string[]; buffer: boolean; modules: number }> {
  const r = await build({
    absWorkingDir: repo,
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    minify: true,
    format: "esm",
    platform: "browser",
    external: ["node:*"],
    logLevel: "silent",
  });
  const nodeImports = Object.entries(r.metafile.inputs).flatMap(([file, input]) =>
    input.imports.filter((i) => i.path.startsWith("node:")).map((i) => `${file} imports ${i.path}`),
  );
  const code = r.outputFiles.map((f) => f.text).join("\n");
  return { nodeImports, buffer: /\bBuffer\b/.test(code), modules: Object.keys(r.metafile.inputs).length };
}

describe("what vcon-archivist/verify reaches is browser-safe", () => {
  it.each([
    ["the verify entry (src/verify)", "src/verify/index.ts"],
    ["the primitives the service shares with it", "src/verify/primitives.ts"],
    ["the /verify page", "src/web/page.ts"],
    ["the /console page", "src/web/console.ts"],
  ])("%s imports no node: module and uses no Buffer", async (_name, entry) => {
    const reach = await nodeReach(entry);
    expect(reach.modules).toBeGreaterThan(20);
    expect(reach.nodeImports).toEqual([]);
    expect(reach.buffer).toBe(false);
  });

  it("the walk sees a node: import and a Buffer where there is one (the service's fast paths)", async () => {
    const reach = await nodeReach("src/core/node/crypto.ts");
    expect(reach.nodeImports).toEqual(["src/core/node/crypto.ts imports node:crypto"]);
    const buffered = await nodeReach("src/keys/keyring.ts");
    expect(buffered.buffer).toBe(true);
  });
});
