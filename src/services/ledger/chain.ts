import type { Ctx, Principal } from "../../context.js";
import { parseUint64, reachable } from "../../core/api/numbers.js";
import type { Block } from "../../core/chain/block.js";
import { notFound } from "../../errors/api-error.js";
import { isoTime } from "../../formats/ids.js";
import { assetEventRecord } from "../../formats/record/asset-event.js";
import { validatorAddress } from "../../keys/validator.js";
import { allBlocks, blockByHash, blockByNumber, headBlock } from "../../store/ledger/chain.js";
import { getAssetEvent } from "../../store/records/asset-events.js";
import { getAsset } from "../../store/records/assets.js";
import { canReadEvent } from "../access/access-view.js";
import { viewFor } from "../access/caller-view.js";

/** The archivist node: its validator's public key (never the private `d`), height and state. */
export async function nodeStatus(ctx: Pick<Ctx, "db" | "keys">) {
  const key = await ctx.keys.get("validator", "ES256");
  const { kty, crv, x, y } = key.publicJwk as Record<string, string>;
  const head = await headBlock(ctx.db);
  const genesis = await blockByNumber(ctx.db, 0);
  return {
    identity: `archivistnode/${await validatorAddress(ctx.keys)}`,
    blockchain_nodes: [
      {
        validator_pubkey: { kty, crv, x, y, d: "" },
        // The height is the number of the last committed block (genesis is block 0), which
        // `archivistnode/block?number=<height>` answers; a count of blocks named the next one.
        block_height: head ? String(Number.parseInt(head.number, 16)) : "0",
        connection_status: "REACHABLE",
        genesis_hash: genesis?.hash ?? "",
        state_root: head?.stateRoot ?? "",
        timestamp_committed: head ? isoTime(Number.parseInt(head.timestamp, 16) * 1000) : "",
        timestamp_created: genesis ? isoTime(Number.parseInt(genesis.timestamp, 16) * 1000) : "",
        syncing: false,
        peers: [],
      },
    ],
  };
}

function blockOut(b: Block) {
  const { transactions: _t, ...header } = b;
  return header;
}

/** A block by number (decimal or 0x hex) or hash. */
export async function getBlock(
  ctx: Pick<Ctx, "db">,
  q: { number?: string | undefined; hash?: string | undefined },
) {
  let b: Block | undefined;
  if (q.hash) b = await blockByHash(ctx.db, q.hash);
  else if (q.number !== undefined) {
    const n = reachable(parseUint64(q.number, "number", { hex: true }));
    b = n === undefined ? undefined : await blockByNumber(ctx.db, n);
  } else b = await headBlock(ctx.db);
  if (!b) throw notFound("block");
  return blockOut(b);
}

/** Every block with its transactions, for offline checking of the whole chain. */
export async function exportChain(ctx: Pick<Ctx, "db">, afterParam: string | undefined) {
  const after =
    afterParam === undefined || afterParam === "-1" ? -1 : reachable(parseUint64(afterParam, "after"));
  const blocks = after === undefined ? [] : await allBlocks(ctx.db, after, 500);
  return {
    blocks,
    next_after: blocks.length === 500 ? Number.parseInt((blocks.at(-1) as Block).number, 16) : -1,
  };
}

/** The anchor transactions behind one event: its simple-hash window, or the seal anchoring its leaf. */
export async function eventTransactions(
  ctx: Pick<Ctx, "caches" | "db">,
  p: Principal,
  assetId: string,
  eventId: string,
) {
  const asset = await getAsset(ctx.db, assetId);
  const grant = asset && (await viewFor(ctx, p)).grant(asset);
  const event = grant ? await getAssetEvent(ctx.db, assetId, eventId) : undefined;
  if (!grant || !event || !canReadEvent(event.event_attributes, grant)) throw notFound("event");
  // The anchoring of a MERKLE_LOG event comes from its seal: read it as the API shows it.
  const { transaction_id, block_number } = assetEventRecord(event);
  if (!transaction_id) return { transactions: [], next_page_token: "" };
  const block = await blockByNumber(ctx.db, block_number);
  const tx = block?.transactions.find((t) => t.hash === transaction_id);
  if (!block || !tx) return { transactions: [], next_page_token: "" };
  const transaction = {
    hash: tx.hash,
    nonce: "0x0",
    block_hash: block.hash,
    block_number: block.number,
    transaction_index: `0x${tx.index.toString(16)}`,
    r: "",
    s: "",
    v: "",
    from: block.miner,
    to: "",
    value: "0x0",
    gas: "0x0",
    gas_price: "0x0",
    input: `0x${tx.anchor}`,
  };
  const simple = tx.kind === "SIMPLE_HASH";
  return {
    transactions: [
      {
        kind: simple ? "SIMPLE_HASH" : "MERKLE_LOG",
        transaction,
        simple_hash_details: simple ? { ...tx.details, anchor_hash: tx.anchor } : null,
        khipu_details: null,
      },
    ],
    next_page_token: "",
  };
}
