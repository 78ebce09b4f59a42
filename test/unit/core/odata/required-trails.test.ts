import { describe, expect, it } from "vitest";
import { evaluateODataFilter, type ODataRecord } from "../../../../src/core/odata/evaluate.js";
import { parseODataFilter } from "../../../../src/core/odata/parser.js";
import { requiredTrails } from "../../../../src/core/odata/required-trails.js";
import { rng } from "../../../helpers/random.js";

const cases: Array<[string, string[] | undefined]> = [
  ["trails/any(t: t eq 'a')", ["a"]],
  ["trails/any(t: t eq 'a' or t eq 'b')", ["a", "b"]],
  ["trails/any(t: t eq 'a' or t eq 'b') and trails/any(t: t eq 'c')", ["c"]],
  ["event_type eq 'x' and (created_at gt 5 and trails/any(t: t eq 'a'))", ["a"]],
  ["event_type eq 'x'", undefined],
  ["trails/any(t: t eq 'a') or event_type eq 'x'", undefined],
  ["not trails/any(t: t eq 'a')", undefined],
  ["not (trails/any(t: t eq 'a') and event_type eq 'x')", undefined],
];

describe("requiredTrails", () => {
  it.each(cases)("%s", (text, expected) => {
    expect(requiredTrails(parseODataFilter(text))).toEqual(expected);
  });

  it("never excludes a record that the filter matches (random filters and records)", () => {
    const r = rng(7);
    const trail = () => `t${r.int(4)}`;
    const atom = (): string => {
      const k = r.int(3);
      if (k === 0) return `trails/any(x: x eq '${trail()}'${r.int(2) ? ` or x eq '${trail()}'` : ""})`;
      if (k === 1) return `event_type eq 'e${r.int(2)}'`;
      return `created_at gt ${r.int(4)}`;
    };
    const expr = (depth: number): string => {
      if (depth === 0 || r.int(3) === 0) return atom();
      const k = r.int(3);
      if (k === 0) return `not (${expr(depth - 1)})`;
      return `(${expr(depth - 1)}) ${k === 1 ? "and" : "or"} (${expr(depth - 1)})`;
    };
    let narrowed = 0;
    for (let i = 0; i < 2000; i++) {
      const ast = parseODataFilter(expr(3));
      const trails = requiredTrails(ast);
      if (!trails) continue;
      narrowed++;
      for (let j = 0; j < 20; j++) {
        const record: ODataRecord = {
          trails: Array.from({ length: r.int(3) }, trail),
          event_type: `e${r.int(2)}`,
          created_at: r.int(4),
        };
        if (evaluateODataFilter(ast, record))
          expect(record.trails?.some((t) => trails.includes(t))).toBe(true);
      }
    }
    expect(narrowed).toBeGreaterThan(200);
  });
});
