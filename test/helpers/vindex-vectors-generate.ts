// Writes test/fixtures/vectors/vindex-v1.json, vindex/v1's known-answer vectors, by hashing each case step by step from the
// specification with node:crypto. It imports nothing of src/formats/vindex on purpose: the vectors
// are what the library is checked against, and what an implementation in another language checks
// itself against. Run: npx tsx test/helpers/vindex-vectors-generate.ts
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";

const sha256 = (...parts: Buffer[]): Buffer => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
};
const hex = (b: Buffer): string => b.toString("hex");
const fill = (byte: number): Buffer => Buffer.alloc(32, byte);
/** 32 bytes: `head` then zeros. */
const startingWith = (...head: number[]): Buffer =>
  Buffer.concat([Buffer.from(head), Buffer.alloc(32 - head.length)]);
const u64be = (n: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};

const ZERO = Buffer.alloc(32);
const leaf = (position: Buffer, value: Buffer): Buffer => sha256(Buffer.of(0x00), position, value);
const node = (left: Buffer, right: Buffer): Buffer => sha256(Buffer.of(0x01), left, right);
const bit = (position: Buffer, depth: number): number =>
  ((position[depth >> 3] as number) >> (7 - (depth % 8))) & 1;

// The value commitment of salt = 0x11 × 32 and the list [0, 5, 17], link by link.
const salt = fill(0x11);
const c0 = ZERO;
const c1 = sha256(Buffer.of(0x03), c0, u64be(0));
const c2 = sha256(Buffer.of(0x03), c1, u64be(5));
const c3 = sha256(Buffer.of(0x03), c2, u64be(17));
const commitment = sha256(Buffer.of(0x02), salt, u64be(3), c3);
const emptyListCommitment = sha256(Buffer.of(0x02), salt, u64be(0), c0);

// One leaf: the root is the leaf's hash, at any depth.
const lone = startingWith(0xab, 0xcd);
const loneRoot = leaf(lone, commitment);

// Two leaves that differ in bit 0: one internal node at the root.
const v1 = fill(0x01);
const v2 = fill(0x02);
const left0 = startingWith(0x7f);
const right0 = startingWith(0x80);
const bit0Root = node(leaf(left0, v1), leaf(right0, v2));

// Two leaves that share 255 bits: the node at depth 255 splits them, and each of the 255 levels
// above it has the other child empty (bit k of both positions says which side the pair is on).
const twinLeft = Buffer.concat([fill(0x5a).subarray(0, 31), Buffer.of(0x5a)]);
const twinRight = Buffer.concat([fill(0x5a).subarray(0, 31), Buffer.of(0x5b)]);
const twinLevels: string[] = [];
let twin = node(leaf(twinLeft, v1), leaf(twinRight, v2));
twinLevels.push(hex(twin));
for (let depth = 254; depth >= 0; depth--) {
  twin = bit(twinLeft, depth) ? node(ZERO, twin) : node(twin, ZERO);
  twinLevels.push(hex(twin));
}

// Three leaves for the proofs: A = 0x00…, E = 0xf0…, F = 0xf8…. E and F share bits 0-3 (1111) and
// differ at bit 4, so the right subtree is: node at 4 splitting them, nodes at 3, 2, 1 with an
// empty left child; the root splits A from it on bit 0.
const a = startingWith(0x00);
const e = startingWith(0xf0);
const f = startingWith(0xf8);
const va = fill(0x0a);
const ve = fill(0x0e);
const vf = fill(0x0f);
const h4 = node(leaf(e, ve), leaf(f, vf));
const h3 = node(ZERO, h4);
const h2 = node(ZERO, h3);
const h1 = node(ZERO, h2);
const proofRoot = node(leaf(a, va), h1);

// Present: E's path is 1,1,1,1 then 0 at the split; its siblings are A, three empties, then F.
const presentProof = {
  siblings: [leaf(a, va), ZERO, ZERO, ZERO, leaf(f, vf)].map(hex),
  terminal: { kind: "leaf", position: hex(e), value: hex(ve) },
};
// Absent, ending empty: G = 0xc0… (1100…) follows the pair at bits 0 and 1 and leaves it at bit 2,
// into the empty left child of the node at depth 2, whose other child is h3.
const g = startingWith(0xc0);
const absentEmptyProof = { siblings: [leaf(a, va), ZERO, h3].map(hex), terminal: { kind: "empty" } };
// Absent, ending at another leaf: D = 0x40… (0100…) goes left at the root, where A is alone.
const d = startingWith(0x40);
const absentLeafProof = { siblings: [hex(h1)], terminal: { kind: "leaf", position: hex(a), value: hex(va) } };

// A revision entry: u64be(log size) ‖ log root ‖ index root ‖ VRF key.
const logRoot = fill(0x33);
const vrfKey = fill(0x55);
const revision = Buffer.concat([u64be(1234), logRoot, proofRoot, vrfKey]);

const vectors = {
  description:
    "vindex/v1 known-answer vectors, made by test/helpers/vindex-vectors-generate.ts (node:crypto, step by step). Hex is lower case; positions, values and hashes are 32 bytes.",
  emptyRoot: hex(ZERO),
  valueCommitment: {
    salt: hex(salt),
    indices: [0, 5, 17],
    chain: [c0, c1, c2, c3].map(hex),
    commitment: hex(commitment),
    emptyListCommitment: hex(emptyListCommitment),
  },
  oneLeaf: {
    leaves: [{ position: hex(lone), value: hex(commitment) }],
    leafHash: hex(loneRoot),
    root: hex(loneRoot),
  },
  twoLeavesBit0: {
    leaves: [
      { position: hex(left0), value: hex(v1) },
      { position: hex(right0), value: hex(v2) },
    ],
    root: hex(bit0Root),
  },
  twoLeavesShare255: {
    leaves: [
      { position: hex(twinLeft), value: hex(v1) },
      { position: hex(twinRight), value: hex(v2) },
    ],
    levels: "the subtree's hash at depth 255, 254, …, 0",
    subtreeHashes: twinLevels,
    root: hex(twin),
  },
  proofs: {
    leaves: [
      { position: hex(a), value: hex(va) },
      { position: hex(e), value: hex(ve) },
      { position: hex(f), value: hex(vf) },
    ],
    subtreeHashes: { depth1: hex(h1), depth2: hex(h2), depth3: hex(h3), depth4: hex(h4) },
    root: hex(proofRoot),
    present: { position: hex(e), expected: hex(ve), proof: presentProof },
    absentEmpty: { position: hex(g), proof: absentEmptyProof },
    absentLeaf: { position: hex(d), proof: absentLeafProof },
  },
  revision: {
    logSize: 1234,
    logRoot: hex(logRoot),
    indexRoot: hex(proofRoot),
    vrfKey: hex(vrfKey),
    entry: hex(revision),
  },
};

writeFileSync(
  new URL("../fixtures/vectors/vindex-v1.json", import.meta.url),
  `${JSON.stringify(vectors, null, 2)}\n`,
);
