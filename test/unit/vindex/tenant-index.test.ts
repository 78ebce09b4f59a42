import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { chainOf, VindexTrie, valueCommitment } from "../../../src/formats/vindex/index.js";
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

  it("holds past a chunk of values and of list entries what the lists, filed anew, give", () => {
    // 20,000 positions (more than a chunk of 2^14 values), 50,000 entries, filed in revisions.
    const positions = Array.from({ length: 20_000 }, () => new Uint8Array(randomBytes(32)));
    const salts = positions.map(() => new Uint8Array(randomBytes(32)));
    const lists = positions.map(() => [] as number[]);
    const index = new TenantIndex();
    let logIndex = 0;
    for (let revision = 0; revision < 25; revision++) {
      const entries = [];
      for (let i = 0; i < 2_000; i++) {
        // Each revision's first 800 entries are new positions, the rest earlier ones again.
        const p = i < 800 ? revision * 800 + i : (i * 7919 + revision) % ((revision + 1) * 800);
        entries.push({
          position: positions[p] as Uint8Array,
          log_index: logIndex,
          salt: salts[p] as Uint8Array,
        });
        (lists[p] as number[]).push(logIndex++);
      }
      index.file(entries, logIndex);
    }
    const want = new VindexTrie();
    for (const [i, p] of positions.entries())
      want.set(p, valueCommitment(salts[i] as Uint8Array, chainOf(lists[i] as number[])));
    expect(index.root()).toEqual(want.root());
    for (const i of [0, 1, 16_383, 16_384, 19_999])
      expect(index.indicesBelow(positions[i] as Uint8Array, logIndex)).toEqual(lists[i]);
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
