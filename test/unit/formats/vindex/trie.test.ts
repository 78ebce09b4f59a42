import { createHash, randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toHex } from "../../../../src/formats/crypto/bytes.js";
import {
  VindexError,
  type VindexProof,
  VindexTrie,
  verifyVindexProof,
} from "../../../../src/formats/vindex/index.js";
import { type Entry, naiveProof, naiveRoot } from "./naive.js";

/** A small seeded generator, so a failing map can be made again. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const BASES = [new Uint8Array(32), new Uint8Array(32).fill(0xff), new Uint8Array(32).fill(0x5a)];

/** Random positions, many of them sharing long prefixes (down to all but the last bit) with others. */
function position(rand: () => number): Uint8Array {
  const p = new Uint8Array(32);
  for (let i = 0; i < 32; i++) p[i] = Math.floor(rand() * 256);
  const kind = rand();
  if (kind < 0.4) return p;
  const base = (BASES[Math.floor(rand() * BASES.length)] as Uint8Array).slice();
  if (kind < 0.7) {
    const depth = Math.floor(rand() * 256);
    base[depth >> 3] = (base[depth >> 3] as number) ^ (0x80 >> (depth & 7));
    return base;
  }
  // The base's first bits, the random ones after.
  const keep = 200 + Math.floor(rand() * 56);
  for (let d = keep; d < 256; d++) {
    const mask = 0x80 >> (d & 7);
    base[d >> 3] = ((base[d >> 3] as number) & ~mask) | ((p[d >> 3] as number) & mask);
  }
  return base;
}

const value = (rand: () => number): Uint8Array =>
  Uint8Array.from({ length: 32 }, () => Math.floor(rand() * 256));

/** The trie and the map it should hold after `n` random sets (a fifth of them replacing). */
function build(
  n: number,
  seed: number,
  trie = new VindexTrie(),
): { trie: VindexTrie; map: Map<string, Entry> } {
  const rand = prng(seed);
  const map = new Map<string, Entry>();
  for (let i = 0; i < n; i++) {
    const known = [...map.values()];
    const pos =
      known.length > 0 && rand() < 0.2
        ? (known[Math.floor(rand() * known.length)] as Entry).position
        : position(rand);
    const entry = { position: pos, value: value(rand) };
    map.set(toHex(pos), entry);
    trie.set(pos, entry.value);
  }
  return { trie, map };
}

const flipBit = (b: Uint8Array, bit: number): Uint8Array => {
  const c = b.slice();
  c[bit >> 3] = (c[bit >> 3] as number) ^ (0x80 >> (bit & 7));
  return c;
};

const nodeSha = (...parts: Uint8Array[]): Uint8Array => {
  const h = createHash("sha256");
  for (const part of parts) h.update(part);
  return new Uint8Array(h.digest());
};

/**
 * The siblings a test spoils: every one that is not empty, and of the empty ones (a long shared
 * prefix gives up to 255) every 16th and the last, so a proof costs hundreds of verifications, not 65,000.
 */
const spoiled = (siblings: readonly Uint8Array[]): number[] =>
  siblings.flatMap((s, i) =>
    s.some((b) => b !== 0) || i % 16 === 0 || i === siblings.length - 1 ? [i] : [],
  );

/** Every way of spoiling a valid proof the brief lists, each refused (hashed by node:crypto, for time). */
function expectTamperingRefused(
  root: Uint8Array,
  pos: Uint8Array,
  proof: VindexProof,
  expected: Uint8Array | null,
) {
  const refused = (p: VindexProof, at = pos, exp = expected) =>
    verifyVindexProof(root, at, p, exp, nodeSha).ok === false;
  for (const i of spoiled(proof.siblings)) {
    const bit = (i * 37) % 256;
    const siblings = proof.siblings.map((s, j) => (j === i ? flipBit(s, bit) : s));
    expect(refused({ ...proof, siblings }), `sibling ${i} bit ${bit}`).toBe(true);
  }
  if (expected !== null) {
    expect(refused(proof, pos, flipBit(expected, 7))).toBe(true);
    expect(refused(proof, flipBit(pos, 255))).toBe(true);
    expect(refused(proof, flipBit(pos, 0))).toBe(true);
    expect(refused(proof, pos, null)).toBe(true);
  } else {
    expect(refused(proof, pos, new Uint8Array(32))).toBe(true);
    if (proof.siblings.length > 0) expect(refused(proof, flipBit(pos, proof.siblings.length - 1))).toBe(true);
    if (proof.terminal.kind === "leaf") {
      expect(refused(proof, proof.terminal.position)).toBe(true);
      const t = { ...proof.terminal, valueCommitment: flipBit(proof.terminal.valueCommitment, 3) };
      expect(refused({ ...proof, terminal: t })).toBe(true);
    }
  }
  if (proof.siblings.length > 0) {
    expect(refused({ ...proof, siblings: proof.siblings.slice(0, -1) }), "truncated").toBe(true);
    expect(refused({ ...proof, siblings: proof.siblings.slice(1) }), "first dropped").toBe(true);
  }
  expect(
    refused({ ...proof, siblings: [...proof.siblings, new Uint8Array(32)] }),
    "extended by an empty",
  ).toBe(true);
  expect(refused({ ...proof, siblings: [...proof.siblings, randomBytes(32)] }), "extended").toBe(true);
}

/** The trie's root and proofs are the naive definition's, and they verify (and refuse tampering). */
function expectMatchesNaive(
  trie: VindexTrie,
  map: Map<string, Entry>,
  probes: readonly Uint8Array[],
  tamper = true,
) {
  const entries = [...map.values()];
  const root = trie.root();
  expect(toHex(root)).toBe(toHex(naiveRoot(entries)));
  expect(trie.size).toBe(map.size);
  const positions = [...entries.map((e) => e.position), ...probes];
  // The naive proof costs a root of half the map: a big map's are compared on a sample (~40).
  const every = Math.ceil(positions.length / 40);
  positions.forEach((pos, i) => {
    const present = map.get(toHex(pos));
    const proof = trie.prove(pos);
    if (i % every === 0 || i >= entries.length) expect(proof).toEqual(naiveProof(entries, pos));
    expect(trie.get(pos)).toEqual(present?.value);
    const expected = present?.value ?? null;
    expect(verifyVindexProof(root, pos, proof, expected)).toEqual({ ok: true });
    if (tamper) expectTamperingRefused(root, pos, proof, expected);
  });
}

describe("VindexTrie against the specification's naive definition", () => {
  it.each([0, 1, 2, 3, 50, 1000])("%i random sets, replacements among them", (n) => {
    for (const seed of n > 100 ? [1] : [1, 2, 3, 4, 5]) {
      const { trie, map } = build(n, seed * 7919 + n);
      const rand = prng(seed);
      const probes = Array.from({ length: 20 }, () => position(rand));
      expectMatchesNaive(trie, map, n > 100 ? probes.slice(0, 5) : probes, n <= 100);
      if (n > 100) {
        // Tampering on a sample of the big map's proofs (each costs ~70 verifications).
        const sample = [...map.values()].slice(0, 30);
        const root = trie.root();
        for (const e of sample) expectTamperingRefused(root, e.position, trie.prove(e.position), e.value);
        for (const p of probes) expectTamperingRefused(root, p, trie.prove(p), null);
      }
    }
  });

  it("positions differing only in the last bit, and a pair at the root's split", () => {
    const a = new Uint8Array(32).fill(0x5a);
    const entries = [a, flipBit(a, 255), flipBit(a, 0), flipBit(a, 254)].map((position, i) => ({
      position,
      value: new Uint8Array(32).fill(i + 1),
    }));
    const trie = new VindexTrie();
    const map = new Map<string, Entry>();
    for (const e of entries) {
      trie.set(e.position, e.value);
      map.set(toHex(e.position), e);
      expectMatchesNaive(trie, map, [flipBit(a, 253), flipBit(a, 128), new Uint8Array(32)]);
    }
    expect(trie.prove(a).siblings).toHaveLength(256);
  });

  it("random insert and replace sequences, the root taken between batches", () => {
    const bytes = fc.uint8Array({ minLength: 32, maxLength: 32 });
    const pos = fc.oneof(
      bytes,
      fc.tuple(fc.constantFrom(...BASES), fc.integer({ min: 0, max: 255 })).map(([b, d]) => flipBit(b, d)),
      fc.constantFrom(...BASES),
    );
    const batch = fc.array(fc.record({ position: pos, value: bytes }), { maxLength: 12 });
    fc.assert(
      fc.property(fc.array(batch, { maxLength: 6 }), (batches) => {
        const trie = new VindexTrie();
        const map = new Map<string, Entry>();
        for (const b of batches) {
          for (const e of b) {
            trie.set(e.position, e.value);
            map.set(toHex(e.position), e);
          }
          expect(toHex(trie.root())).toBe(toHex(naiveRoot([...map.values()])));
        }
        expectMatchesNaive(trie, map, BASES, false);
      }),
      { numRuns: 50 },
    );
  });

  it("a batch after a root recomputes to the naive root, and proofs after it verify", () => {
    const { trie, map } = build(300, 42);
    const before = trie.root();
    const more = build(100, 43, trie);
    for (const [k, e] of more.map) map.set(k, e);
    expectMatchesNaive(trie, map, [], false);
    expect(trie.root()).not.toEqual(before);
  });

  it("grows past a chunk of nodes and keeps every root the naive one gives", () => {
    // 20,000 positions are 40,000 nodes: more than one chunk of leaves and of branches (2^14).
    const rand = prng(7);
    const trie = new VindexTrie();
    const map = new Map<string, Entry>();
    for (let i = 0; i < 20_000; i++) {
      const e = { position: value(rand), value: value(rand) };
      trie.set(e.position, e.value);
      map.set(toHex(e.position), e);
    }
    expect(trie.size).toBe(20_000);
    expect(toHex(trie.root())).toBe(toHex(naiveRoot([...map.values()])));
    const probe = [...map.values()][17_500] as Entry;
    expect(trie.get(probe.position)).toEqual(probe.value);
  });

  it("setting a value already held changes nothing, and the caller's buffers are copied", () => {
    const trie = new VindexTrie();
    const p = new Uint8Array(32).fill(1);
    const v = new Uint8Array(32).fill(2);
    trie.set(p, v);
    trie.set(flipBit(p, 9), v);
    const root = trie.root();
    trie.set(p, v.slice());
    expect(trie.root()).toEqual(root);
    p.fill(3);
    v.fill(4);
    expect(trie.root()).toEqual(root);
    expect(trie.get(new Uint8Array(32).fill(1))).toEqual(new Uint8Array(32).fill(2));
    trie.root().fill(0);
    expect(trie.root()).toEqual(root);
  });

  it("the empty map's root is 32 zero bytes, and its proofs are empty", () => {
    const trie = new VindexTrie();
    expect(trie.root()).toEqual(new Uint8Array(32));
    const proof = trie.prove(new Uint8Array(32).fill(7));
    expect(proof).toEqual({ siblings: [], terminal: { kind: "empty" } });
    expect(verifyVindexProof(trie.root(), new Uint8Array(32).fill(7), proof, null)).toEqual({ ok: true });
    expect(trie.size).toBe(0);
  });

  it("refuses a position or a commitment that is not 32 bytes", () => {
    const trie = new VindexTrie();
    expect(() => trie.set(new Uint8Array(31), new Uint8Array(32))).toThrow(VindexError);
    expect(() => trie.set(new Uint8Array(32), new Uint8Array(33))).toThrow(VindexError);
    expect(() => trie.prove(new Uint8Array(0))).toThrow(VindexError);
    expect(() => trie.get(new Uint8Array(64))).toThrow(VindexError);
  });
});
