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
): Promise<{ nodeImports: string[]; buffer: boolean; modules: number; inputs: string[] }> {
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
  const inputs = Object.keys(r.metafile.inputs);
  return { nodeImports, buffer: /\bBuffer\b/.test(code), modules: inputs.length, inputs };
}

describe("what vcon-archivist/verify reaches is browser-safe", () => {
  it.each([
    ["the verify entry (src/verify)", "src/verify/index.ts"],
    ["the lifecycle's vocabulary and consent (src/formats/lifecycle)", "src/formats/lifecycle/consent.ts"],
    [
      "the formats (src/formats, through a transparent statement and the record model)",
      "src/formats/scitt/transparent-statement.ts",
    ],
    ["the auditor's look-ups (src/lookup)", "src/lookup/lookup-verdict.ts"],
    ["the /verify page", "src/web/page.ts"],
    ["the /console page", "src/web/console.ts"],
  ])("%s imports no node: module and uses no Buffer", async (_name, entry) => {
    const reach = await nodeReach(entry);
    expect(reach.modules).toBeGreaterThan(12);
    expect(reach.nodeImports).toEqual([]);
    expect(reach.buffer).toBe(false);
    // No HTTP notion either: the API's errors and their statuses are the server's (src/errors).
    expect(reach.inputs.filter((f) => /^src\/(errors|http)\//.test(f))).toEqual([]);
  });

  it("the walk sees a node: import and a Buffer where there is one (the service's fast paths)", async () => {
    const reach = await nodeReach("src/core/node/crypto.ts");
    expect(reach.nodeImports).toEqual(["src/core/node/crypto.ts imports node:crypto"]);
    const buffered = await nodeReach("src/keys/keyring.ts");
    expect(buffered.buffer).toBe(true);
    // and an HTTP notion where there is one (a server's route reaches the API's errors)
    const http = await nodeReach("src/errors/path-uuid.ts");
    expect(http.inputs).toContain("src/errors/api-error.ts");
  });
});
