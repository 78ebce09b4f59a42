import { createHash } from "node:crypto";

/** One anchor transaction: a log's seal root, or a simple-hash window's anchor. */
export interface ChainTransaction {
  kind: "MERKLE_LOG_SEAL" | "SIMPLE_HASH";
  tenant: string;
  /** The anchored value, hex (seal: the seal's SHA-256; simple hash: the v3 anchor hash). */
  anchor: string;
  /** What the anchor covers (seal: mmr_size; simple hash: window and event count). */
  details: Record<string, string | number>;
}

/** A block of the archivist node chain, with the Ethereum-style hex fields of the interface. */
export interface Block {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  transactionRoot: string;
  difficulty: string;
  extraData: string;
  gasLimit: string;
  gasUsed: string;
  logsBloom: string;
  miner: string;
  nonce: string;
  privateStateRoot: string;
  receiptsRoot: string;
  sha3Uncles: string;
  stateRoot: string;
  transactions: Array<ChainTransaction & { hash: string; index: number }>;
}

const ZERO32 = `0x${"00".repeat(32)}`;
const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
};
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString("hex")}`;
const unhex = (s: string) => Buffer.from(s.replace(/^0x/, ""), "hex");

/** Canonical bytes of a transaction: JSON with sorted keys, so any mirror recomputes the same hash. */
function transactionHash(tx: ChainTransaction): string {
  const details = Object.fromEntries(Object.entries(tx.details).sort(([a], [b]) => (a < b ? -1 : 1)));
  return hex(
    sha256(Buffer.from(JSON.stringify({ anchor: tx.anchor, details, kind: tx.kind, tenant: tx.tenant }))),
  );
}

/** RFC 6962 Merkle tree hash over the transaction hashes (leaf prefix 0x00, node prefix 0x01). */
export function transactionRoot(hashes: string[]): string {
  if (hashes.length === 0) return hex(sha256());
  let level: Buffer[] = hashes.map((h) => sha256(Buffer.from([0]), unhex(h)));
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const right = level[i + 1];
      next.push(right ? sha256(Buffer.from([1]), level[i] as Buffer, right) : (level[i] as Buffer));
    }
    level = next;
  }
  return hex(level[0] as Buffer);
}

/** Builds the next block; its hash commits to number, parent, time, miner and transaction root. */
export function buildBlock(opts: {
  number: number;
  parentHash: string;
  timestampMs: number;
  miner: string;
  transactions: ChainTransaction[];
}): Block {
  const txs = opts.transactions.map((t, index) => ({ ...t, hash: transactionHash(t), index }));
  const root = transactionRoot(txs.map((t) => t.hash));
  const number = `0x${opts.number.toString(16)}`;
  const timestamp = `0x${Math.floor(opts.timestampMs / 1000).toString(16)}`;
  const header = [number, opts.parentHash, timestamp, opts.miner, root].join("|");
  return {
    number,
    hash: hex(sha256(Buffer.from(header))),
    parentHash: opts.parentHash,
    timestamp,
    transactionRoot: root,
    difficulty: "0x0",
    extraData: "0x",
    gasLimit: "0x0",
    gasUsed: "0x0",
    logsBloom: `0x${"00".repeat(256)}`,
    miner: opts.miner,
    nonce: "0x0000000000000000",
    privateStateRoot: ZERO32,
    receiptsRoot: ZERO32,
    sha3Uncles: ZERO32,
    stateRoot: root,
    transactions: txs,
  };
}

/** Checks a whole exported chain: hashes, parent links, numbering and transaction roots. */
export function verifyChain(
  blocks: Block[],
  genesisParent = ZERO32,
): { ok: true } | { ok: false; reason: string } {
  let parent = genesisParent;
  for (const [i, b] of blocks.entries()) {
    const again = buildBlock({
      number: Number.parseInt(b.number, 16),
      parentHash: b.parentHash,
      timestampMs: Number.parseInt(b.timestamp, 16) * 1000,
      miner: b.miner,
      transactions: b.transactions.map(({ hash: _h, index: _i, ...t }) => t),
    });
    if (b.parentHash !== parent) return { ok: false, reason: `block ${i} does not link to its parent` };
    if (again.hash !== b.hash || again.transactionRoot !== b.transactionRoot)
      return { ok: false, reason: `block ${i} hash mismatch` };
    parent = b.hash;
  }
  return { ok: true };
}

export const GENESIS_PARENT = ZERO32;
