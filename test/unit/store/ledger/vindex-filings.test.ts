import { describe, expect, it } from "vitest";
import {
  FilingsBroken,
  packEntries,
  packSalts,
  unpackFilings,
} from "../../../../src/store/ledger/vindex-filings.js";

const pos = (b: number) => new Uint8Array(32).fill(b);

describe("an index filing's packed columns (053-vindex-filings)", () => {
  it("packs an entry as its position then its log index, u64 big-endian", () => {
    const packed = packEntries([{ position: pos(0xab), log_index: 0x0102030405 }]);
    expect(packed.toString("hex")).toBe(`${"ab".repeat(32)}0000000102030405`);
    for (const log_index of [0, 2 ** 32 - 1, 2 ** 32, 0x0102030405, 2 ** 53 - 1])
      expect(
        unpackFilings([
          { entries: packEntries([{ position: pos(1), log_index }]), salts: Buffer.alloc(0) },
        ])[0]?.log_index,
      ).toBe(log_index);
  });

  it("packs a salt after its position", () => {
    expect(packSalts([{ position: pos(1), salt: pos(2) }]).toString("hex")).toBe(
      `${"01".repeat(32)}${"02".repeat(32)}`,
    );
  });

  it("reads back the entries in the order filed, each with the salt a filing read carries", () => {
    const first = {
      entries: packEntries([
        { position: pos(1), log_index: 0 },
        { position: pos(2), log_index: 0 },
      ]),
      salts: packSalts([
        { position: pos(1), salt: pos(11) },
        { position: pos(2), salt: pos(12) },
      ]),
    };
    const second = { entries: packEntries([{ position: pos(1), log_index: 7 }]), salts: packSalts([]) };
    expect(unpackFilings([first, second])).toEqual([
      { position: pos(1), log_index: 0, salt: pos(11) },
      { position: pos(2), log_index: 0, salt: pos(12) },
      { position: pos(1), log_index: 7, salt: pos(11) },
    ]);
    // Read alone, a later filing carries no salt for a position an earlier one saw first.
    expect(unpackFilings([second])).toEqual([{ position: pos(1), log_index: 7, salt: null }]);
  });

  it("refuses bytes that are not whole entries or salts, and indices past 2^53", () => {
    const entries = packEntries([{ position: pos(1), log_index: 3 }]);
    expect(() => unpackFilings([{ entries: entries.subarray(0, 39), salts: Buffer.alloc(0) }])).toThrow(
      FilingsBroken,
    );
    expect(() => unpackFilings([{ entries, salts: Buffer.alloc(63) }])).toThrow(FilingsBroken);
    const huge = Buffer.from(entries);
    huge.writeBigUInt64BE(2n ** 53n, 32);
    expect(() => unpackFilings([{ entries: huge, salts: Buffer.alloc(0) }])).toThrow(
      /2\^53|9007199254740992/,
    );
  });

  it("refuses to pack what it could not read back", () => {
    expect(() => packEntries([{ position: pos(1).subarray(1), log_index: 0 }])).toThrow(RangeError);
    expect(() => packEntries([{ position: pos(1), log_index: -1 }])).toThrow(RangeError);
    expect(() => packEntries([{ position: pos(1), log_index: 2 ** 53 }])).toThrow(RangeError);
    expect(() => packSalts([{ position: pos(1), salt: pos(2).subarray(2) }])).toThrow(RangeError);
  });
});
