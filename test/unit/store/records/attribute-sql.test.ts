import { describe, expect, it } from "vitest";
import type { ListAttributeFilter } from "../../../../src/core/filters/list-spec.js";
import { Where } from "../../../../src/store/query/sql.js";
import { addListFilters, anyOfPath } from "../../../../src/store/records/attribute-sql.js";

describe("anyOfPath", () => {
  it("writes one strict jsonpath test for a key given several values", () => {
    expect(anyOfPath("k", ["x", "7", 7])).toBe('strict $."k" == "x" || $."k" == "7" || $."k" == 7');
  });

  it("quotes keys and values as JSON strings, escapes included", () => {
    expect(anyOfPath('a"b\\c', ["é☃", 'x"\n'])).toBe(
      'strict $."a\\"b\\\\c" == "é☃" || $."a\\"b\\\\c" == "x\\"\\n"',
    );
  });
});

describe("addListFilters", () => {
  const table = { table: "assets", columns: { attributes: "attributes" }, tenantColumn: "tenant_id" };
  const subjects = (uuids: string[]): ListAttributeFilter => ({
    kind: "match",
    prefix: "attributes",
    name: "subject",
    values: uuids.map((u) => `vcon://${u}`),
    present: false,
  });
  const A = "0190a8b4-7c2e-7d4a-9b1c-2f3e4d5c6b7a";
  const B = "0190a8b4-7c2e-7d4a-9b1c-2f3e4d5c6b7b";

  it("writes the same subject spellings into the list's clause and its index probe", () => {
    const w = new Where();
    const probe = addListFilters(w, [subjects([A, B])], table);
    const path = (ps: unknown[]) => ps.find((p) => typeof p === "string" && p.startsWith("strict"));
    expect(path(w.params)).toBe(path(probe?.params ?? []));
    // Four spellings of each subject, each once.
    for (const u of [A, B])
      for (const s of [
        `vcon://${u}`,
        `vcon://${u.toUpperCase()}`,
        `VCON://${u}`,
        `VCON://${u.toUpperCase()}`,
      ])
        expect(String(path(w.params)).split(`"${s}"`)).toHaveLength(2);
  });

  it("works a filter out again when its values changed since", () => {
    const f = subjects([A, B]);
    addListFilters(new Where(), [f], table);
    if (f.kind === "match") f.values.push(`vcon://${A.replace(/a$/, "c")}`);
    const w = new Where();
    addListFilters(w, [f], table);
    expect(w.params.some((p) => typeof p === "string" && p.includes(A.replace(/a$/, "c")))).toBe(true);
  });
});
