import { describe, expect, it } from "vitest";
import { ApiError } from "../../../../src/errors/api-error.js";
import { validateAttributes } from "../../../../src/services/records/attributes.js";

/** The 400's message for `attrs`, or undefined when they are accepted. */
function refusal(attrs: Record<string, unknown>): string | undefined {
  try {
    validateAttributes("event_attributes", attrs);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return (e as ApiError).message;
  }
}

describe("attribute maps: what the leaf's bencode can carry", () => {
  it("accepts text, whole numbers, lists, maps and a null map value", () => {
    expect(refusal({ a: "x", b: 7, c: ["y", 2, { d: [] }], e: null, f: { g: null } })).toBeUndefined();
  });

  it("names the refused value's place, down lists and maps", () => {
    expect(refusal({ ok: "x", k: { y: [1, true] } })).toBe(
      "event_attributes.k.y[1] must be a string, a whole number, a list, an object (got boolean)",
    );
    expect(refusal({ k: [1, null] })).toBe(
      "event_attributes.k[1] must be a string, a whole number, a list, an object (got null)",
    );
    expect(refusal({ k: 1.5 })).toBe(
      "event_attributes.k must be a string, a whole number, a list, an object or null (got number)",
    );
    expect(refusal({ k: { "x.y": { z: false } } })).toBe(
      "event_attributes.k.x.y.z must be a string, a whole number, a list, an object or null (got boolean)",
    );
  });

  it("refuses a value nested past 32 levels below the attribute, and only past", () => {
    const nest = (levels: number) => {
      let v: unknown = "v";
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    expect(refusal({ k: nest(32) })).toBeUndefined();
    expect(refusal({ k: nest(33) })).toMatch(/^event_attributes\.k(\[0\]){33} is nested too deeply$/);
  });
});
