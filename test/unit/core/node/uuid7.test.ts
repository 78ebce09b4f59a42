import { describe, expect, it } from "vitest";
import { uuid7 } from "../../../../src/core/node/uuid7.js";
import { isUuid } from "../../../../src/formats/ids.js";

const FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const millisOf = (id: string) => Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16);

describe("uuid7", () => {
  it("writes the milliseconds big-endian in the first 48 bits (RFC 9562 §5.7)", () => {
    // RFC 9562 appendix A.6's example time, 2022-02-22T19:22:22Z = 0x017F22E279B0.
    expect(uuid7(0x017f22e279b0).slice(0, 14)).toBe("017f22e2-79b0-");
    expect(uuid7(0x0123456789ab).slice(0, 15)).toBe("01234567-89ab-7");
    expect(uuid7(0).slice(0, 15)).toBe("00000000-0000-7");
    expect(uuid7(2 ** 48 - 1).slice(0, 15)).toBe("ffffffff-ffff-7");
    // Outside the field: held at its ends, never another version's bits.
    expect(uuid7(-5).slice(0, 13)).toBe("00000000-0000");
    expect(uuid7(2 ** 50).slice(0, 13)).toBe("ffffffff-ffff");
    expect(millisOf(uuid7(1_764_160_000_123.9))).toBe(1_764_160_000_123);
  });

  it("is a canonical version 7, variant 10 UUID, distinct across pool refills", () => {
    const seen = new Set<string>();
    const t = Date.now();
    // More than one pool of random bytes (512 identities), at one millisecond: all distinct.
    for (let i = 0; i < 5_000; i++) {
      const id = uuid7(t);
      expect(id).toMatch(FORM);
      expect(isUuid(id)).toBe(true);
      seen.add(id);
    }
    expect(seen.size).toBe(5_000);
  });

  it("sorts by time: a later millisecond's identity sorts after an earlier one's", () => {
    const ids = [1, 2, 1_000, 65_536, 2 ** 32, 2 ** 40].map((ms) => uuid7(1_700_000_000_000 + ms));
    expect([...ids].sort()).toEqual(ids);
    const now = uuid7();
    expect(Math.abs(millisOf(now) - Date.now())).toBeLessThan(60_000);
  });

  it("draws its random bits fresh: 74 bits differ between two identities of one millisecond", () => {
    const a = uuid7(1).replace(/-/g, "");
    const b = uuid7(1).replace(/-/g, "");
    expect(a.slice(0, 12)).toBe(b.slice(0, 12));
    expect(a.slice(12)).not.toBe(b.slice(12));
  });
});
