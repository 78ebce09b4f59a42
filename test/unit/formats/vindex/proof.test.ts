import { describe, expect, it } from "vitest";
import { toHex } from "../../../../src/formats/crypto/bytes.js";
import {
  decodeProof,
  encodeProof,
  VindexError,
  type VindexProof,
  VindexTrie,
  verifyVindexProof,
} from "../../../../src/formats/vindex/index.js";
import { naiveLeaf, naiveNode } from "./naive.js";

const fill = (b: number) => new Uint8Array(32).fill(b);
const at = (...head: number[]) => {
  const p = new Uint8Array(32);
  p.set(head);
  return p;
};
const ZERO = new Uint8Array(32);

/** A (0x00…), E (0xf0…) and F (0xf8…): E and F share four bits, then split. */
function sample(): VindexTrie {
  const trie = new VindexTrie();
  trie.set(at(0x00), fill(0x0a));
  trie.set(at(0xf0), fill(0x0e));
  trie.set(at(0xf8), fill(0x0f));
  return trie;
}

const reason = (r: { ok: boolean; reason?: string }) => (r.ok ? "ok" : r.reason);

describe("verifyVindexProof refuses", () => {
  const trie = sample();
  const root = trie.root();

  it("more than 256 siblings, and parts that are not 32 bytes", () => {
    const long: VindexProof = {
      siblings: Array.from({ length: 257 }, () => fill(1)),
      terminal: { kind: "empty" },
    };
    expect(reason(verifyVindexProof(root, at(1), long, null))).toMatch(/at most 256/);
    const proof = trie.prove(at(0xf0));
    expect(reason(verifyVindexProof(root.subarray(1), at(0xf0), proof, fill(0x0e)))).toMatch(/root/);
    expect(reason(verifyVindexProof(root, new Uint8Array(31), proof, fill(0x0e)))).toMatch(/position/);
    expect(reason(verifyVindexProof(root, at(0xf0), proof, new Uint8Array(33)))).toMatch(/expected/);
    const short = { ...proof, siblings: [...proof.siblings.slice(0, -1), new Uint8Array(31)] };
    expect(reason(verifyVindexProof(root, at(0xf0), short, fill(0x0e)))).toMatch(/sibling/);
    const bad = { siblings: [], terminal: { kind: "node" } } as unknown as VindexProof;
    expect(reason(verifyVindexProof(root, at(0xf0), bad, null))).toMatch(/neither/);
  });

  it("a proof the tree would have collapsed: an empty deepest sibling, beside a leaf or nothing", () => {
    // One leaf alone is the root; pushed down a level beside an empty subtree it would still fold.
    const one = new VindexTrie();
    one.set(at(0x80), fill(7));
    const lone = one.prove(at(0x80));
    expect(lone.siblings).toEqual([]);
    expect(verifyVindexProof(one.root(), at(0x80), lone, fill(7))).toEqual({ ok: true });
    const deeper: VindexProof = { ...lone, siblings: [ZERO] };
    const forgedRoot = naiveNode(ZERO, naiveLeaf({ position: at(0x80), value: fill(7) }));
    expect(reason(verifyVindexProof(forgedRoot, at(0x80), deeper, fill(7)))).toMatch(/collapsed/);
    const nothing: VindexProof = { siblings: [ZERO], terminal: { kind: "empty" } };
    expect(reason(verifyVindexProof(naiveNode(ZERO, ZERO), at(0x80), nothing, null))).toMatch(/collapsed/);
  });

  it("a leaf terminal off the position's path, or the position's own leaf in an absent proof", () => {
    const absent = trie.prove(at(0x40));
    expect(absent.terminal).toEqual({ kind: "leaf", position: at(0x00), valueCommitment: fill(0x0a) });
    expect(verifyVindexProof(root, at(0x40), absent, null)).toEqual({ ok: true });
    // 0x80… goes right at the root: A's leaf is not on its path.
    expect(reason(verifyVindexProof(root, at(0x80), absent, null))).toMatch(/not on the position's path/);
    expect(reason(verifyVindexProof(root, at(0x00), absent, null))).toMatch(/present/);
  });

  it("a present claim on an absent proof, an absent claim on a present one, and another commitment", () => {
    const present = trie.prove(at(0xf8));
    expect(reason(verifyVindexProof(root, at(0xf8), present, null))).toMatch(/present/);
    expect(reason(verifyVindexProof(root, at(0xf8), present, fill(0x0e)))).toMatch(/another value/);
    const empty = trie.prove(at(0xc0));
    expect(empty.terminal.kind).toBe("empty");
    expect(reason(verifyVindexProof(root, at(0xc0), empty, fill(0x0e)))).toMatch(/absent/);
    const elsewhere = trie.prove(at(0x40));
    expect(reason(verifyVindexProof(root, at(0x40), elsewhere, fill(0x0a)))).toMatch(/another position/);
  });

  it("a proof of another root", () => {
    const other = sample();
    other.set(at(0x01), fill(1));
    expect(reason(verifyVindexProof(root, at(0xf0), other.prove(at(0xf0)), fill(0x0e)))).toMatch(/root/);
  });

  it("takes a hash: a proof folded with another one does not verify", () => {
    const proof = trie.prove(at(0xf0));
    const other = (...parts: Uint8Array[]) =>
      naiveLeaf({ position: parts[1] ?? ZERO, value: parts[2] ?? ZERO });
    expect(verifyVindexProof(root, at(0xf0), proof, fill(0x0e), other).ok).toBe(false);
  });
});

describe("the proof's JSON form", () => {
  const trie = sample();

  it("round-trips as an object and as text", () => {
    for (const p of [at(0xf0), at(0xc0), at(0x40)]) {
      const proof = trie.prove(p);
      const json = encodeProof(proof);
      expect(decodeProof(json)).toEqual(proof);
      expect(decodeProof(JSON.stringify(json))).toEqual(proof);
    }
    expect(encodeProof(trie.prove(at(0xc0)))).toEqual({
      siblings: [toHex(naiveLeaf({ position: at(0), value: fill(0x0a) })), toHex(ZERO), expect.any(String)],
      terminal: { kind: "empty" },
    });
  });

  it("refuses every other shape with a VindexError", () => {
    const good = encodeProof(trie.prove(at(0xf0)));
    const hex = "ab".repeat(32);
    const bad: unknown[] = [
      "not json",
      null,
      [],
      "[]",
      { siblings: good.siblings },
      { ...good, extra: 1 },
      { ...good, siblings: "ab" },
      { ...good, siblings: [...good.siblings, "AB".repeat(32)] },
      { ...good, siblings: [...good.siblings, "ab".repeat(31)] },
      { ...good, siblings: [...good.siblings, 7] },
      { ...good, siblings: Array.from({ length: 257 }, () => hex) },
      { ...good, terminal: { kind: "leaf", position: hex } },
      { ...good, terminal: { kind: "leaf", position: hex, value: hex, more: 1 } },
      { ...good, terminal: { kind: "empty", position: hex } },
      { ...good, terminal: { kind: "node" } },
      { ...good, terminal: null },
    ];
    for (const json of bad) {
      expect(() => decodeProof(json), JSON.stringify(json)).toThrow(VindexError);
    }
    let code: string | undefined;
    try {
      decodeProof({});
    } catch (e) {
      code = (e as VindexError).code;
    }
    expect(code).toBe("VINDEX");
  });
});
