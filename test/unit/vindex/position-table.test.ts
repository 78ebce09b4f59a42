import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashAt, PositionTable } from "../../../src/vindex/position-table.js";

describe("the index's position table", () => {
  it("numbers positions in the order added and finds each again, through growth", () => {
    const table = new PositionTable();
    const positions = Array.from({ length: 20_000 }, () => new Uint8Array(randomBytes(32)));
    positions.forEach((p, i) => {
      expect(table.find(p)).toBe(-1);
      expect(table.add(p)).toBe(i);
    });
    expect(table.size).toBe(20_000);
    expect(positions.map((p) => table.find(p))).toEqual(positions.map((_, i) => i));
    // A copy of a held position is found: the table compares bytes, not arrays.
    expect(table.find((positions[123] as Uint8Array).slice())).toBe(123);
  });

  it("tells apart positions whose first bytes are the same, and finds one that differs only in its last bit", () => {
    const table = new PositionTable();
    const base = new Uint8Array(32).fill(0xab);
    const alike = Array.from({ length: 3_000 }, (_, i) => {
      const p = base.slice();
      p[30] = i >> 8;
      p[31] = i & 0xff;
      return p;
    });
    for (const p of alike) table.add(p);
    expect(alike.map((p) => table.find(p))).toEqual(alike.map((_, i) => i));
    const absent = base.slice();
    absent[29] = 0;
    expect(table.find(absent)).toBe(-1);
    const last = (alike[0] as Uint8Array).slice();
    last[31] = (last[31] as number) ^ 1;
    expect(table.find(last)).toBe(1);
  });

  it("spreads positions alike in all but their last bytes over the slots (rows may plant such positions)", () => {
    // 4,096 positions equal in their first 30 bytes, as a database writer could file them: a hash
    // of the first bytes alone put every one in one slot, and each search walked all of them.
    const slots = new Set<number>();
    for (let i = 0; i < 4_096; i++) {
      const p = new Uint8Array(32).fill(0x11);
      p[30] = i >> 8;
      p[31] = i & 0xff;
      slots.add(hashAt(p, 0) & 0xffff);
    }
    expect(slots.size).toBeGreaterThan(3_900);
  });
});
