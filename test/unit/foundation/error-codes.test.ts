import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/core/api/api-error.js";
import { CborError } from "../../../src/core/cbor/error.js";
import { QueryError } from "../../../src/core/filters/query-error.js";
import { CodedError } from "../../../src/index.js";

// The error vocabulary (src/errors.ts, plugins/conserver/errors.ts): every error class derives
// from CodedError, and every code it can carry is in the exported union a caller switches on.
const repo = resolve(import.meta.dirname, "../../..");

function sources(dir: string): string[] {
  return readdirSync(join(repo, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .map((f) => join(dir, f));
}
const all = [...sources("src"), ...sources("plugins")].map((path) => ({
  path,
  text: readFileSync(join(repo, path), "utf8"),
}));

describe("one error vocabulary", () => {
  it("no error class derives from Error directly, save the client's, which carry a code all the same", () => {
    // The client's entry imports nothing outside its folder (package-entries.test.ts).
    const client = all.filter(({ path }) => path.startsWith(join("src", "client")));
    const clientErrors = client.flatMap(({ text }) => [
      ...text.matchAll(/class \w+ extends Error \{\n\s+readonly code = "(\w+)"/g),
    ]);
    expect(clientErrors.map((m) => m[1])).toEqual(["API_REFUSED", "API_UNAVAILABLE"]);
    const plain = all
      .filter((f) => !client.includes(f))
      .flatMap(({ path, text }) =>
        [...text.matchAll(/class (\w+) extends (?:Error|TypeError|RangeError)\b/g)].map(
          (m) => `${path}: ${m[1]}`,
        ),
      );
    expect(plain).toEqual([]);
  });

  it("every CodedError's code is in the union its entry exports", () => {
    const vocab = readFileSync(join(repo, "src/errors.ts"), "utf8");
    const plugin = readFileSync(join(repo, "plugins/conserver/errors.ts"), "utf8");
    const missing: string[] = [];
    let seen = 0;
    for (const { path, text } of all)
      for (const m of text.matchAll(/class (\w+) extends CodedError<([^>]+)>/g)) {
        seen++;
        const [, name, code] = m as unknown as [string, string, string];
        const union = path.startsWith("plugins/") ? plugin : vocab;
        const named = union.includes(`${name}["code"]`) || union.includes(code.trim());
        if (!named) missing.push(`${path}: ${name} (${code})`);
      }
    expect(missing).toEqual([]);
    expect(seen).toBeGreaterThanOrEqual(24);
  });

  it("codes and names are set, and an API error's code follows its kind", () => {
    const cbor = new CborError("truncated");
    expect(cbor).toBeInstanceOf(CodedError);
    expect([cbor.code, cbor.name]).toEqual(["CBOR", "CborError"]);
    expect(new ApiError("not_found", "asset not found").code).toBe("NOT_FOUND");
    const q = new QueryError("ODATA_PARSE", "bad filter", 3);
    expect([q.code, q.kind, q.name]).toEqual(["ODATA_PARSE", "invalid_argument", "QueryError"]);
  });
});
