import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repo } from "../../helpers/import-graph.js";

// Issue 73: no request of the service reaches another of its own routes. The evidence and
// consent routes once read the service through its routes in-process (Fastify's `inject`), and
// so paid for a request per read and turned each refusal into a status and back; they now call
// the services as the caller (src/http/caller-evidence.ts). Injecting a request is for tests.
const CODE = ["src", "plugins", "bench", "scripts"];
// Written in pieces so that this file does not name what it looks for.
const INJECT = new RegExp(["\\.\\s*", "inject", "\\s*\\("].join(""));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Each line of `text` that injects a request, as "file:line". */
function injections(file: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) => (INJECT.test(line) ? [`${file}:${i + 1}`] : []));
}

describe("no request of the service reaches its own routes (issue 73)", () => {
  it("nothing outside the tests injects a request", () => {
    const found = CODE.flatMap((dir) =>
      sources(join(repo, dir)).flatMap((path) =>
        injections(relative(repo, path).split("\\").join("/"), readFileSync(path, "utf8")),
      ),
    );
    expect(found).toEqual([]);
  });

  it("the check fires on an injected request, and not on the word alone", () => {
    const call = ["const res = await req.server", "inject({ url });"].join(".");
    expect(injections("x.ts", `// a test may inject\n${call}\n`)).toEqual(["x.ts:2"]);
    expect(injections("x.ts", "const injected = 1;\n// inject requests in tests\n")).toEqual([]);
  });
});
