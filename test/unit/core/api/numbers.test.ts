import { describe, expect, it } from "vitest";
import { parseUint64, reachable } from "../../../../src/core/api/numbers.js";
import { ApiError } from "../../../../src/errors/api-error.js";

describe("parseUint64", () => {
  it("reads decimal uint64 values at both ends of the range", () => {
    expect(parseUint64("0", "x")).toBe(0n);
    expect(parseUint64("18446744073709551615", "x")).toBe(18446744073709551615n);
    expect(parseUint64("0x1f", "x", { hex: true })).toBe(31n);
  });
  it.each([
    "18446744073709551616",
    "99999999999999999999",
    "-1",
    "1.5",
    "",
    "1e3",
    " 1",
    "0x1f",
    "999999999999999999999",
  ])("refuses %j with a 400 naming the parameter", (raw) => {
    const err = (() => {
      try {
        parseUint64(raw, "mmr_size");
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).kind).toBe("invalid_argument");
    expect((err as ApiError).message).toContain("mmr_size");
  });
  it("refuses hex past 64 bits", () => {
    expect(() => parseUint64("0x10000000000000000", "n", { hex: true })).toThrow(ApiError);
  });
});

describe("reachable", () => {
  it("keeps safe integers and drops what no log reaches", () => {
    expect(reachable(9007199254740991n)).toBe(9007199254740991);
    expect(reachable(9007199254740992n)).toBeUndefined();
  });
});
