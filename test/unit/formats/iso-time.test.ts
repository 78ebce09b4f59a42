import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoTime } from "../../../src/formats/ids.js";

// The runtime's own writing is the known answer: isoTime computes the years 0000–9999 itself.
const runtime = (ms: number) => new Date(ms).toISOString();

describe("isoTime", () => {
  it("writes what toISOString writes at the calendar's edges", () => {
    const edges = [
      0, -1, 1, 951_782_400_000 /* 2000-02-29 */, 951_868_800_000, 4_107_542_400_000 /* 2100-03-01 */,
      -2_208_988_800_000 /* 1900 */, -62_162_035_200_000 /* 0000-03-01 */, -62_162_035_200_001,
      -62_167_219_200_000 /* 0000-01-01 */, -62_167_219_200_001 /* year -1 */,
      253_402_300_799_999 /* 9999-12-31T23:59:59.999Z */, 253_402_300_800_000 /* +010000 */, 8.64e15,
      -8.64e15,
    ];
    for (const ms of edges) expect(isoTime(ms), String(ms)).toBe(runtime(ms));
    expect(isoTime(new Date(1_764_160_000_123))).toBe("2025-11-26T12:26:40.123Z");
    expect(isoTime("2026-11-26T13:00:00+01:00")).toBe("2026-11-26T12:00:00.000Z");
    expect(isoTime(null)).toBe("");
    expect(isoTime(undefined)).toBe("");
  });

  it("writes the time asked, not the last one, whatever the order of times", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(0, 1, 1_764_160_000_123, 1_764_160_000_124, 8.64e15), { maxLength: 12 }),
        (times) => {
          for (const ms of times) expect(isoTime(ms)).toBe(runtime(ms));
        },
      ),
    );
  });

  it("refuses an invalid date as the runtime does", () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });

  it("writes what toISOString writes for any time a Date holds", () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => isoTime(ms) === runtime(ms)),
      { numRuns: 20_000 },
    );
    // Denser where records live: the years 1900–2200.
    fc.assert(
      fc.property(
        fc.integer({ min: -2_208_988_800_000, max: 7_258_118_400_000 }),
        (ms) => isoTime(new Date(ms)) === runtime(ms),
      ),
      { numRuns: 20_000 },
    );
  });
});
