import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashesParam, plainArrayParam } from "../../../../src/store/query/bulk-params.js";

describe("a commit batch's column parameters", () => {
  it("lays hashes end to end and refuses one of another length", () => {
    const a = new Uint8Array(32).fill(1);
    const b = new Uint8Array(32).fill(2);
    expect(hashesParam([a, b])).toEqual(Buffer.concat([a, b]));
    expect(hashesParam([])).toHaveLength(0);
    expect(() => hashesParam([a, new Uint8Array(31)])).toThrow(RangeError);
  });

  it("writes plain values as an array literal and refuses any value needing quotes", () => {
    expect(plainArrayParam([])).toBe("{}");
    expect(plainArrayParam([1, 22, 333])).toBe("{1,22,333}");
    expect(
      plainArrayParam(["asset_event", "9f0c3a52-1e2b-4c1d-8e0f-123456789abc", "0192abcdef01234567"]),
    ).toBe("{asset_event,9f0c3a52-1e2b-4c1d-8e0f-123456789abc,0192abcdef01234567}");
    for (const bad of [
      ["a,b"],
      [""],
      ["a", ""],
      ["a b"],
      ["{a}"],
      ['"a"'],
      ["a\\b"],
      ["é"],
      ["NULL"],
      ["null"],
      [1.5],
      [Number.NaN],
    ])
      expect(() => plainArrayParam(bad), JSON.stringify(bad)).toThrow(RangeError);
  });

  it("refuses, for any values, whatever would not read back as the same elements", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.nat(), fc.double(), fc.constantFrom("null", "NuLl", "a-b.c_d")), {
          maxLength: 6,
        }),
        (values) => {
          let literal: string;
          try {
            literal = plainArrayParam(values);
          } catch {
            return;
          }
          const elements = literal === "{}" ? [] : literal.slice(1, -1).split(",");
          expect(elements).toEqual(values.map(String));
          for (const e of elements) {
            expect(e).toMatch(/^[\w.-]+$/);
            expect(e.toLowerCase()).not.toBe("null");
          }
        },
      ),
    );
  });
});
