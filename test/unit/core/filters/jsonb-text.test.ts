import { describe, expect, it } from "vitest";
import { attributeText, compareCodePoints, jsonbText } from "../../../../src/core/filters/jsonb-text.js";

// Expected texts are what PostgreSQL prints for `('{"v": <json>}'::jsonb)->>'v'`.
const texts: Array<[unknown, string | null]> = [
  ["plain", "plain"],
  ["", ""],
  [null, null],
  [undefined, null],
  [5, "5"],
  [-2.5, "-2.5"],
  [true, "true"],
  [false, "false"],
  [[], "[]"],
  [{}, "{}"],
  [[1, "a", null, true], '[1, "a", null, true]'],
  [{ b: 1, a: 2 }, '{"a": 2, "b": 1}'],
  [{ bb: 1, c: 2, aa: 3 }, '{"c": 2, "aa": 3, "bb": 1}'],
  [{ é: 1, ab: 2 }, '{"ab": 2, "é": 1}'],
  [{ q: 'say "hi"\n' }, '{"q": "say \\"hi\\"\\n"}'],
  [{ list: [{ y: 1, x: [] }] }, '{"list": [{"x": [], "y": 1}]}'],
];

describe("jsonbText", () => {
  it.each(texts)("%j → %j", (value, text) => {
    expect(jsonbText(value)).toBe(text);
  });

  it("reads own properties only", () => {
    expect(attributeText({}, "toString")).toBeNull();
    expect(attributeText({}, "__proto__")).toBeNull();
    expect(attributeText(JSON.parse('{"__proto__": "x"}'), "__proto__")).toBe("x");
    expect(attributeText(null, "a")).toBeNull();
  });

  it("refuses absurdly deep values rather than overflowing the stack", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(() => jsonbText(deep)).toThrow(RangeError);
  });
});

const orders: Array<[string, string, number]> = [
  ["a", "b", -1],
  ["b", "a", 1],
  ["a", "a", 0],
  ["", "a", -1],
  ["a", "ab", -1],
  ["B", "a", -1],
  ["\uFFFF", "😀", -1], // UTF-16 order would say the opposite
  ["😀", "😁", -1],
];

describe("compareCodePoints", () => {
  it.each(orders)("%j vs %j → %i", (a, b, order) => {
    expect(compareCodePoints(a, b)).toBe(order);
  });
});
