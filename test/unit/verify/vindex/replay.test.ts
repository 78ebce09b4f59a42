import { describe, expect, it } from "vitest";
import { nodeSha256 } from "../../../../src/core/node/crypto.js";
import { toHex } from "../../../../src/formats/crypto/bytes.js";
import { type FiledRecord, type KeyPlace, replayIndex } from "../../../../src/verify/vindex/replay.js";
import { naiveIndexRoot } from "./naive-index.js";

// The replay held to vindex/v1 written out by hand (naive-index.ts), and to pinned roots of a small
// log, so a change of either side shows.
const place = (p: number, s: number): KeyPlace => ({
  position: new Uint8Array(32).fill(p),
  salt: new Uint8Array(32).fill(s),
});
// Positions 0x11…, 0x91… and 0x93…: the last two share their first six bits.
const places = new Map([
  ["vcon://a", place(0x11, 0xa1)],
  ["assets/b", place(0x91, 0xa2)],
  ["issuer:c", place(0x93, 0xa3)],
]);

const records: FiledRecord[] = [
  { entry: 0, keys: ["assets/b", "vcon://a"] },
  { entry: 1, keys: ["vcon://a"] },
  // A log entry filed under no key (a period's link, an event with no subject).
  { entry: 2, keys: [] },
  { entry: 3, keys: ["assets/b", "issuer:c"] },
  { entry: 5, keys: ["vcon://a"] },
];

/** The index over every record below `size`, from the definitions. */
const expectedRoot = (size: number) => naiveIndexRoot(records, places, size);

// The roots of that log at 2, 4 and 6 entries, as computed when this test was written.
const PINNED = {
  2: "f56c7dff583d05aaf056e0f47e566551d9e9eb6712341008dca9f08755bf2e02",
  4: "c836976292998b95cbfcf2314846daf1143554cd64750adc8561ad1da3933ee6",
  6: "f8da27d4f1aabeb4813b6d447573cb5a896e01914d87fb515868cb27a594b7c4",
};

const revisionsAt = (sizes: number[]) =>
  sizes.map((logSize, seq) => ({ seq, logSize, indexRoot: expectedRoot(logSize) }));

describe("the index replayed from records", () => {
  it("gives vindex/v1's roots, written out, at every revision", () => {
    const revisions = revisionsAt([2, 4, 6]);
    for (const hash of [undefined, nodeSha256])
      expect(replayIndex(records, places, revisions, hash)).toEqual({
        ok: true,
        records: 5,
        revisions: 3,
        logSize: 6,
        keys: 3,
      });
    expect(Object.fromEntries(revisions.map((r) => [r.logSize, toHex(r.indexRoot)]))).toEqual(PINNED);
  });

  it("starts from the empty map: a revision before any record has the root 32 zero bytes", () => {
    const revisions = [
      { seq: 0, logSize: 0, indexRoot: new Uint8Array(32) },
      ...revisionsAt([6]).map((r) => ({ ...r, seq: 1 })),
    ];
    expect(replayIndex(records, places, revisions)).toMatchObject({ ok: true, revisions: 2 });
  });

  it("names the first revision whose root differs, and the lists that changed since the one before", () => {
    const revisions = revisionsAt([2, 4, 6]);
    const wrong = { ...(revisions[1] as (typeof revisions)[number]), indexRoot: new Uint8Array(32).fill(9) };
    const r = replayIndex(records, places, [revisions[0]!, wrong, revisions[2]!]);
    expect(r).toEqual({
      ok: false,
      seq: 1,
      logSize: 4,
      since: 2,
      keys: ["assets/b", "issuer:c"],
      rebuilt: toHex(expectedRoot(4)),
      published: "09".repeat(32),
    });
  });

  it("a record left out is found at the first revision past it", () => {
    const without = records.filter((r) => r.entry !== 3);
    expect(replayIndex(without, places, revisionsAt([2, 4, 6]))).toMatchObject({
      ok: false,
      seq: 1,
      logSize: 4,
      // Nothing changed from 2 to 4 entries without it: the published root holds what is missing.
      keys: [],
    });
  });

  it("files nothing past the last revision, and refuses a key with no known position", () => {
    const late = [...records, { entry: 9, keys: ["subject:unknown"] }];
    expect(replayIndex(late, places, revisionsAt([2, 4, 6]))).toMatchObject({ ok: true, records: 5 });
    expect(() => replayIndex(late, places, revisionsAt([10]))).toThrow(
      /no position is known for the key subject:unknown/,
    );
  });
});
