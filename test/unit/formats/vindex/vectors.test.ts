import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fromHex, toHex } from "../../../../src/formats/crypto/bytes.js";
import {
  appendIndex,
  chainOf,
  decodeProof,
  decodeRevision,
  emptyValue,
  encodeProof,
  encodeRevision,
  leafHash,
  VindexTrie,
  valueCommitment,
  verifyVindexProof,
} from "../../../../src/formats/vindex/index.js";

// test/fixtures/vectors/vindex-v1.json is made by its generator (test/helpers/vindex-vectors-generate.ts), hashing each case step by step with
// node:crypto and none of the library: the library must give every value it holds.
interface Leaves {
  leaves: Array<{ position: string; value: string }>;
  root: string;
}
interface ProofCase {
  position: string;
  expected?: string;
  proof: { siblings: string[]; terminal: { kind: string } };
}
interface Vectors {
  emptyRoot: string;
  valueCommitment: {
    salt: string;
    indices: number[];
    chain: string[];
    commitment: string;
    emptyListCommitment: string;
  };
  oneLeaf: Leaves & { leafHash: string };
  twoLeavesBit0: Leaves;
  twoLeavesShare255: Leaves & { subtreeHashes: string[] };
  proofs: Leaves & { present: ProofCase; absentEmpty: ProofCase; absentLeaf: ProofCase };
  revision: { logSize: number; logRoot: string; indexRoot: string; vrfKey: string; entry: string };
}

const v = JSON.parse(
  readFileSync(new URL("../../../fixtures/vectors/vindex-v1.json", import.meta.url), "utf8"),
) as Vectors;

function trieOf(c: Leaves): VindexTrie {
  const trie = new VindexTrie();
  for (const l of c.leaves) trie.set(fromHex(l.position), fromHex(l.value));
  return trie;
}

describe("vindex/v1 known-answer vectors", () => {
  it("the empty map's root", () => {
    expect(toHex(new VindexTrie().root())).toBe(v.emptyRoot);
  });

  it("the value commitment of salt 0x11 × 32 and [0, 5, 17], link by link", () => {
    const c = v.valueCommitment;
    let chain = emptyValue();
    const links = [toHex(chain.head)];
    for (const i of c.indices) {
      chain = appendIndex(chain, i);
      links.push(toHex(chain.head));
    }
    expect(links).toEqual(c.chain);
    const whole = chainOf(c.indices);
    expect(whole).toEqual(chain);
    expect(whole.count).toBe(3);
    expect(toHex(valueCommitment(fromHex(c.salt), whole))).toBe(c.commitment);
    expect(toHex(valueCommitment(fromHex(c.salt), emptyValue()))).toBe(c.emptyListCommitment);
  });

  it("one leaf, two split at bit 0, two sharing 255 bits", () => {
    const one = trieOf(v.oneLeaf);
    const [leaf] = v.oneLeaf.leaves;
    expect(toHex(leafHash(fromHex(leaf!.position), fromHex(leaf!.value)))).toBe(v.oneLeaf.leafHash);
    expect(toHex(one.root())).toBe(v.oneLeaf.root);
    expect(toHex(trieOf(v.twoLeavesBit0).root())).toBe(v.twoLeavesBit0.root);
    expect(toHex(trieOf(v.twoLeavesShare255).root())).toBe(v.twoLeavesShare255.root);
    expect(v.twoLeavesShare255.subtreeHashes.at(-1)).toBe(v.twoLeavesShare255.root);
  });

  it("a present proof and two absent ones, made, encoded and verified", () => {
    const p = v.proofs;
    const trie = trieOf(p);
    expect(toHex(trie.root())).toBe(p.root);
    for (const c of [p.present, p.absentEmpty, p.absentLeaf]) {
      const position = fromHex(c.position);
      const proof = trie.prove(position);
      expect(encodeProof(proof)).toEqual(c.proof);
      expect(decodeProof(JSON.stringify(c.proof))).toEqual(proof);
      const expected = c.expected === undefined ? null : fromHex(c.expected);
      expect(verifyVindexProof(fromHex(p.root), position, decodeProof(c.proof), expected)).toEqual({
        ok: true,
      });
    }
  });

  it("a revision entry", () => {
    const r = v.revision;
    const revision = {
      logSize: r.logSize,
      logRoot: fromHex(r.logRoot),
      indexRoot: fromHex(r.indexRoot),
      vrfKey: fromHex(r.vrfKey),
    };
    expect(toHex(encodeRevision(revision))).toBe(r.entry);
    expect(decodeRevision(fromHex(r.entry))).toEqual(revision);
    expect(r.indexRoot).toBe(v.proofs.root);
  });
});
