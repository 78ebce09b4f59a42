import * as rfc9162 from "../formats/rfc9162/index.js";
import { indexKeys, indexOrigin, type MapInput } from "../formats/vindex/map.js";
import type { Queryable } from "../store/drivers/db.js";
import { checkpointToCatchUp } from "../store/ledger/tlog-checkpoints.js";
import {
  type IndexFacts,
  indexFactsBetween,
  insertIndexCheckpoint,
  insertRevision,
} from "../store/ledger/vindex.js";
import { insertIndexFiling } from "../store/ledger/vindex-filings.js";
import type { FreshIndexFacts } from "./fresh-facts.js";
import type { IndexBasis, IndexStates } from "./index-states.js";
import { appendRevision, type Ed25519Signing, outputRoot, signIndexCheckpoint } from "./output-log.js";
import type { IndexPositions } from "./positions.js";
import type { FiledEntry } from "./tenant-index.js";

/** The log checkpoint a revision is bound to, as the seal signed it. */
export interface SignedLogHead {
  origin: string;
  size: number;
  root: Uint8Array;
}

/** What the map function reads of a stored entry; undefined for an entry that is no record (a period's). */
function mapInputOfFacts(f: IndexFacts): MapInput | undefined {
  if (f.kind === "period") return undefined;
  return {
    kind: f.kind === "asset_event" ? "asset-event" : "asset-free-event",
    asset: f.asset_id ?? undefined,
    subject: f.subject ?? undefined,
    issuer: f.issuer ?? undefined,
  };
}

/** The index entries of log entries, each with its position's salt (kept only for a new position). */
function entriesOf(log: string, facts: readonly IndexFacts[], positions: IndexPositions): FiledEntry[] {
  const entries: FiledEntry[] = [];
  for (const f of facts) {
    const input = mapInputOfFacts(f);
    if (!input) continue;
    for (const key of indexKeys(input)) {
      const { position, salt } = positions.of(log, key);
      entries.push({ position, log_index: f.leaf_index, salt });
    }
  }
  return entries;
}

/** The index's state and positions, as a revision reads and extends them. */
export interface IndexParts {
  states: IndexStates;
  positions: IndexPositions;
  /** The committer's facts of the entries it appended; absent or short, the database's are read. */
  facts?: FreshIndexFacts;
}

/** Entries filed by one revision at most: an index behind its log (a log older than the index) catches up over the stored checkpoints, a bounded step per seal. */
const REVISION_STEP = 20_000;

/**
 * Makes the index's revision at a log checkpoint just signed, in the seal's transaction (under the
 * log's lock, after its head moved): files the entries since the last revision, then appends the
 * revision (log size and root, index root) to the output log and signs its checkpoint. It signs
 * only what follows from what was signed: the index as the newest signed revision has it
 * (`IndexStates.current`), the output tree whose root its signed checkpoint gives, and entries of
 * the log the checkpoint covers.
 */
export async function reviseIndex(
  tx: Queryable,
  tenantId: string,
  head: SignedLogHead,
  parts: IndexParts,
  keys: Ed25519Signing,
  basis: IndexBasis | undefined,
): Promise<number | undefined> {
  const { states, positions } = parts;
  const current = await states.current(tx, tenantId);
  const { index, outputRoot: signedRoot } = current;
  if (head.size <= index.logSize) return undefined;
  const to =
    head.size - index.logSize <= REVISION_STEP ? head : await catchUpTo(tx, tenantId, index.logSize, basis);
  const seq = index.revisions;
  // The output tree's stored nodes must give the root its last checkpoint signed before one is appended.
  if (signedRoot && !rfc9162.sameHash(await outputRoot(tx, tenantId, seq), signedRoot))
    throw basis
      ? basis.refuse(
          "index_checkpoint",
          tenantId,
          "the index's output tree does not give the root this service signed",
        )
      : new Error(`the index of log ${tenantId}: its output tree does not give its signed root`);
  const facts =
    parts.facts?.between(tenantId, index.logSize, to.size) ??
    (await indexFactsBetween(tx, tenantId, index.logSize, to.size));
  const entries = entriesOf(`tenant/${tenantId}`, facts, positions);
  const from = index.logSize;
  // Filed in memory first, for the salts of the positions it had not seen: the memory is marked
  // ahead of the rows until the revision is signed, and forgotten if it is not.
  states.changing(tenantId);
  const salts = index.file(entries, to.size);
  await insertIndexFiling(tx, tenantId, { from, to: to.size, entries, salts });
  const rev = { logSize: to.size, logRoot: to.root, indexRoot: index.root(), vrfKey: positions.publicKey };
  const root = await appendRevision(tx, tenantId, seq, rev);
  const origin = indexOrigin(head.origin);
  const note = await signIndexCheckpoint(origin, seq + 1, root, keys);
  await insertRevision(tx, {
    tenant_id: tenantId,
    seq,
    log_size: rev.logSize,
    log_root: rev.logRoot,
    index_root: rev.indexRoot,
    vrf_key: rev.vrfKey,
  });
  await insertIndexCheckpoint(tx, { tenant_id: tenantId, size: seq + 1, root, note });
  index.revisions = seq + 1;
  states.signed(tenantId, root);
  basis?.signedCheckpoint({ tenant_id: tenantId, size: seq + 1, note }, root, "vindex");
  return seq + 1;
}

/** A stored log checkpoint one step above `above` entries, its root as its signature gives it. */
async function catchUpTo(
  tx: Queryable,
  tenantId: string,
  above: number,
  basis: IndexBasis | undefined,
): Promise<SignedLogHead> {
  const cp = await checkpointToCatchUp(tx, tenantId, above, above + REVISION_STEP);
  if (!cp) throw new Error(`log ${tenantId} has no checkpoint above ${above} entries to index up to`);
  const root = basis ? await basis.checkpointRoot("index_checkpoint", cp) : cp.root;
  return { origin: cp.origin, size: cp.size, root };
}
