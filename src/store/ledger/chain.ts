import type { Block } from "../../core/chain/block.js";
import type { Queryable } from "../drivers/db.js";

interface BlockRow {
  number: number;
  hash: string;
  parent_hash: string;
  timestamp_ms: number;
  transaction_root: string;
  body: Block;
}

const CHAIN_LOCK = "chain";

/** Takes the chain's single-writer lock for this transaction; false when another process holds it. */
export async function tryLockChain(tx: Queryable): Promise<boolean> {
  const rows = await tx.query<{ ok: boolean }>(
    "select pg_try_advisory_xact_lock(hashtextextended($1, 7245)) as ok",
    [CHAIN_LOCK],
  );
  return rows[0]?.ok === true;
}

/** The newest block (the parent of the next one). */
export async function headBlock(db: Queryable): Promise<Block | undefined> {
  const rows = await db.query<BlockRow>("select * from blocks order by number desc limit 1");
  return rows[0]?.body;
}

export async function insertBlock(tx: Queryable, b: Block, timestampMs: number): Promise<void> {
  await tx.query(
    "insert into blocks (number, hash, parent_hash, timestamp_ms, transaction_root, body) values ($1, $2, $3, $4, $5, $6::jsonb)",
    [Number.parseInt(b.number, 16), b.hash, b.parentHash, timestampMs, b.transactionRoot, JSON.stringify(b)],
  );
}

export async function blockByNumber(db: Queryable, n: number): Promise<Block | undefined> {
  return (await db.query<BlockRow>("select * from blocks where number = $1", [n]))[0]?.body;
}

export async function blockByHash(db: Queryable, hash: string): Promise<Block | undefined> {
  return (await db.query<BlockRow>("select * from blocks where hash = $1", [hash.toLowerCase()]))[0]?.body;
}

/** Every block in order (chain export). */
export async function allBlocks(db: Queryable, after = -1, limit = 1000): Promise<Block[]> {
  return (
    await db.query<BlockRow>("select * from blocks where number > $1 order by number limit $2", [
      after,
      limit,
    ])
  ).map((r) => r.body);
}
