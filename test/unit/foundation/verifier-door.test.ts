import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Graph, importGraph, repo } from "../../helpers/import-graph.js";

// The verifier has one door, its package entry (issue 73): the CLI, the pages, the service, the
// plugins and the bench take what they need of it from there, so what a third party gets is what
// the house runs. Tests may still reach a verifier file to check it.
const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as {
  exports: Record<string, { default: string } | string>;
};
const built = (pkg.exports["./verify"] as { default: string }).default;
const door = built.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts");

/** Each import of a verifier file other than its door, by a file outside the verifier. */
function pastTheDoor(graph: Graph): string[] {
  return graph.internal
    .filter((e) => !e.from.startsWith("src/verify/") && e.to.startsWith("src/verify/") && e.to !== door)
    .map((e) => `${e.from} → ${e.to}`);
}

describe("the verifier's one door", () => {
  it("is the package entry vcon-archivist/verify, and nothing outside src/verify passes it", () => {
    expect(door).toBe("src/verify/index.ts");
    const graph = importGraph(["src", "plugins", "bench", "scripts"]);
    expect(graph.internal.filter((e) => e.to === door).length).toBeGreaterThan(20);
    expect(pastTheDoor(graph)).toEqual([]);
  });

  it("names an import past it", () => {
    const graph: Graph = {
      files: [],
      internal: [
        { from: "src/cli/x.ts", to: "src/verify/verdict/verdict.ts" },
        { from: "src/web/y.ts", to: "src/verify/index.ts" },
        { from: "src/verify/index.ts", to: "src/verify/verdict/index.ts" },
      ],
      external: [],
    };
    expect(pastTheDoor(graph)).toEqual(["src/cli/x.ts → src/verify/verdict/verdict.ts"]);
  });
});
