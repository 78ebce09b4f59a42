import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  appendIndex,
  appendToStateAt,
  chainOf,
  decodeRevision,
  emptyValue,
  encodeRevision,
  REVISION_SIZE,
  stateCommitmentAt,
  stateCount,
  VALUE_STATE_SIZE,
  VindexError,
  valueCommitment,
  valueStateAt,
} from "../../../../src/formats/vindex/index.js";

const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
const sha = (...parts: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

describe("value chains and commitments", () => {
  it("append one link at a time, as the whole list does", () => {
    const indices = [3, 9, 2 ** 40, Number.MAX_SAFE_INTEGER];
    let chain = emptyValue();
    let expected = new Uint8Array(32);
    for (const i of indices) {
      chain = appendIndex(chain, i);
      expected = sha(Uint8Array.of(3), expected, u64(i));
      expect(chain.head).toEqual(expected);
    }
    expect(chainOf(indices)).toEqual(chain);
    const salt = new Uint8Array(32).fill(9);
    expect(valueCommitment(salt, chain)).toEqual(sha(Uint8Array.of(2), salt, u64(4), expected));
    expect(valueCommitment(salt, chain, sha)).toEqual(valueCommitment(salt, chain));
    expect(appendIndex(emptyValue(), 5, sha)).toEqual(appendIndex(emptyValue(), 5));
  });

  it("the empty list's chain is n = 0 and 32 zero bytes, a fresh one each time", () => {
    const e = emptyValue();
    expect(e).toEqual({ count: 0, head: new Uint8Array(32) });
    e.head.fill(1);
    expect(emptyValue().head).toEqual(new Uint8Array(32));
  });

  it("refuses indices out of range or out of order, and a salt not 32 bytes", () => {
    for (const bad of [-1, 1.5, 2 ** 53, Number.NaN])
      expect(() => appendIndex(emptyValue(), bad)).toThrow(VindexError);
    expect(() => chainOf([1, 1])).toThrow(VindexError);
    expect(() => chainOf([5, 2])).toThrow(VindexError);
    expect(() => valueCommitment(new Uint8Array(16), emptyValue())).toThrow(VindexError);
  });
});

describe("revision entries", () => {
  const logRoot = new Uint8Array(32).fill(0x33);
  const indexRoot = new Uint8Array(32).fill(0x44);
  const vrfKey = new Uint8Array(32).fill(0x55);

  it("u64be(logSize) ‖ logRoot ‖ indexRoot ‖ vrfKey, and back", () => {
    const entry = encodeRevision({ logSize: 2 ** 40 + 7, logRoot, indexRoot, vrfKey });
    expect(entry).toHaveLength(REVISION_SIZE);
    expect(entry).toEqual(new Uint8Array([...u64(2 ** 40 + 7), ...logRoot, ...indexRoot, ...vrfKey]));
    expect(decodeRevision(entry)).toEqual({ logSize: 2 ** 40 + 7, logRoot, indexRoot, vrfKey });
  });

  it("refuses a wrong length, a size past 2^53 - 1, and fields it cannot write", () => {
    expect(() => decodeRevision(new Uint8Array(103))).toThrow(VindexError);
    expect(() => decodeRevision(new Uint8Array(105))).toThrow(VindexError);
    const huge = new Uint8Array(104).fill(0xff);
    expect(() => decodeRevision(huge)).toThrow(VindexError);
    expect(() => encodeRevision({ logSize: -1, logRoot, indexRoot, vrfKey })).toThrow(VindexError);
    expect(() => encodeRevision({ logSize: 1, logRoot: new Uint8Array(31), indexRoot, vrfKey })).toThrow(
      VindexError,
    );
    expect(() => encodeRevision({ logSize: 1, logRoot, indexRoot, vrfKey: new Uint8Array(33) })).toThrow(
      VindexError,
    );
  });
});

describe("value states (a list kept as its commitment's input)", () => {
  it("give the chain's commitment and count after each index, counts past 2^32 included, where they lie", () => {
    const salt = new Uint8Array(32).map((_, i) => 200 - i);
    // A state among others in one array: its neighbours' bytes are left as they were.
    const at = 11;
    const bytes = new Uint8Array(at + VALUE_STATE_SIZE + 5).fill(0xee);
    valueStateAt(bytes, at, salt);
    let chain = emptyValue();
    const out = new Uint8Array(40);
    expect(stateCount(bytes, at)).toBe(0);
    stateCommitmentAt(bytes, at, out, 8);
    expect(out.subarray(8)).toEqual(valueCommitment(salt, chain));
    for (const i of [0, 7, 2 ** 32 + 5, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      appendToStateAt(bytes, at, i);
      chain = appendIndex(chain, i);
      expect(stateCount(bytes, at)).toBe(chain.count);
      stateCommitmentAt(bytes, at, out, 8);
      expect(out.subarray(8)).toEqual(valueCommitment(salt, chain));
      // The commitment is SHA-256(0x02 ‖ salt ‖ u64be(n) ‖ c_n), computed here apart from the code.
      expect(out.subarray(8)).toEqual(sha(Uint8Array.of(2), salt, u64(chain.count), chain.head));
    }
    expect(bytes.subarray(0, at).every((b) => b === 0xee)).toBe(true);
    expect(bytes.subarray(at + VALUE_STATE_SIZE).every((b) => b === 0xee)).toBe(true);
  });

  it("refuse an index that is not a safe non-negative integer, and a state of another shape or place", () => {
    const state = new Uint8Array(VALUE_STATE_SIZE);
    valueStateAt(state, 0, new Uint8Array(32));
    for (const bad of [-1, 1.5, 2 ** 53, Number.NaN])
      expect(() => appendToStateAt(state, 0, bad)).toThrow(VindexError);
    expect(stateCount(state)).toBe(0);
    expect(() => appendToStateAt(new Uint8Array(72), 0, 1)).toThrow(VindexError);
    expect(() => appendToStateAt(state, 1, 1)).toThrow(VindexError);
    expect(() => stateCommitmentAt(new Uint8Array(73), 0, new Uint8Array(32), 0)).toThrow(VindexError);
    expect(() => valueStateAt(new Uint8Array(73), 0, new Uint8Array(31))).toThrow(VindexError);
    expect(() => valueStateAt(new Uint8Array(73), 1, new Uint8Array(32))).toThrow(VindexError);
  });
});
