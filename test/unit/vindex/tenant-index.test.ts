import { describe, expect, it } from "vitest";
import { chainOf, valueCommitment } from "../../../src/formats/vindex/index.js";
import { IndexEntryRefused, TenantIndex } from "../../../src/vindex/tenant-index.js";

const pos = (b: number) => new Uint8Array(32).fill(b);
const salt = (b: number) => new Uint8Array(32).fill(0x80 + b);

describe("a tenancy's index in memory", () => {
  it("keeps each position's list, and answers it as of a log size", () => {
    const index = new TenantIndex();
    index.file(
      [
        { position: pos(1), log_index: 0, salt: salt(1) },
        { position: pos(2), log_index: 1, salt: salt(2) },
        { position: pos(1), log_index: 2, salt: null },
      ],
      3,
    );
    index.file([{ position: pos(1), log_index: 5, salt: null }], 6);
    expect(index.indicesBelow(pos(1), 6)).toEqual([0, 2, 5]);
    expect(index.indicesBelow(pos(1), 5)).toEqual([0, 2]);
    expect(index.indicesBelow(pos(1), 1)).toEqual([0]);
    expect(index.indicesBelow(pos(3), 6)).toEqual([]);
    // The list is the one the trie commits to.
    expect(index.trie.get(pos(1))).toEqual(valueCommitment(salt(1), chainOf([0, 2, 5])));
    expect(index.trie.get(pos(2))).toEqual(valueCommitment(salt(2), chainOf([1])));
  });

  it("refuses an entry outside the range filed, out of order, or at a new position without a salt", () => {
    const index = new TenantIndex();
    index.file([{ position: pos(1), log_index: 4, salt: salt(1) }], 5);
    expect(() => index.file([{ position: pos(1), log_index: 3, salt: null }], 6)).toThrow(IndexEntryRefused);
    expect(() => index.file([{ position: pos(1), log_index: 6, salt: null }], 6)).toThrow(IndexEntryRefused);
    expect(() => index.file([{ position: pos(2), log_index: 5, salt: null }], 6)).toThrow(/no salt/);
    expect(() =>
      new TenantIndex().file(
        [
          { position: pos(1), log_index: 2, salt: salt(1) },
          { position: pos(1), log_index: 1, salt: null },
        ],
        3,
      ),
    ).toThrow(/filed after/);
  });
});
