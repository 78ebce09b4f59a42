import { leafCount, peakIndices } from "../formats/mmr/indices.js";
import { treeRoot } from "../formats/tlog/tree.js";
import type { Queryable } from "../store/drivers/db.js";
import { logSize, readNodes } from "../store/ledger/ledger.js";
import { openPeriod } from "../store/ledger/log-periods.js";
import type { SealRow } from "../store/ledger/seals.js";
import { latestCheckpoint } from "../store/ledger/tlog-checkpoints.js";
import { tlogSize } from "../store/ledger/tlog-nodes.js";
import { withNodes } from "../store/ledger/tlog-tiles.js";
import { type HeldLog, heldBehind, heldFork } from "./held-log.js";
import type { SignedLogState } from "./signed-state.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

/**
 * Compares a log in the database with what the service last signed for it (the key directory's
 * signed state): the database must hold at least the signed sizes, with the signed peaks at the
 * signed MMR size and the signed root at the signed tree size. Undefined when it does.
 */
export async function compareWithSigned(q: Queryable, s: SignedLogState): Promise<HeldLog | undefined> {
  const tenant = s.tenant_id;
  const database = { mmr_size: await logSize(q, tenant), tree_size: await tlogSize(q, tenant) };
  if (database.mmr_size < s.mmr_size || (s.tree_size !== undefined && database.tree_size < s.tree_size))
    return heldBehind(s, database);
  const indices = peakIndices(s.mmr_size);
  const nodes = await readNodes(q, tenant, indices);
  const peaks = indices.map((i) => nodes.get(i));
  if (peaks.some((p, k) => !p || b64(p) !== s.peaks[k]))
    return heldFork(
      s,
      database,
      `the database's log at MMR size ${s.mmr_size} is not the one this service sealed at that size (${s.signed_at}): it holds other entries`,
    );
  if (s.tree_size !== undefined && s.root !== undefined) {
    const size = s.tree_size;
    const root = await withNodes(q, tenant, (get) => treeRoot(size, get));
    if (hex(root) !== s.root)
      return heldFork(
        s,
        database,
        `the database's tree of ${size} entries has root ${hex(root)}, but this service signed root ${s.root} for that size (${s.signed_at})`,
      );
  }
  return undefined;
}

/**
 * Every seal row gone while this service had sealed the log: sealing again from nothing would sign
 * a log with no signed past (issue 71); the signed state knows better. `prev`: the newest seal.
 */
export async function sealsDeleted(
  q: Queryable,
  s: SignedLogState,
  prev: SealRow | undefined,
): Promise<HeldLog | undefined> {
  const sealedBefore = s.pending ? s.before : s;
  if (prev || !sealedBefore || sealedBefore.mmr_size === 0) return undefined;
  return heldFork(
    s,
    { mmr_size: await logSize(q, s.tenant_id), tree_size: await tlogSize(q, s.tenant_id) },
    `the database holds no seal of the log, but this service sealed it at MMR size ${sealedBefore.mmr_size} (${sealedBefore.signed_at}): its seals were deleted`,
  );
}

/** The signed state a database's newest seal (and its checkpoint) stands for. */
export async function stateOf(db: Queryable, tenantId: string, seal: SealRow): Promise<SignedLogState> {
  const cp = await latestCheckpoint(db, tenantId);
  const open = await openPeriod(db, tenantId);
  return {
    ...(open.period > 0 ? { open_period: { period: open.period, start_size: open.start_size } } : {}),
    tenant_id: tenantId,
    mmr_size: seal.mmr_size,
    peaks: seal.peaks,
    ...(cp && cp.size === leafCount(seal.mmr_size) ? { tree_size: cp.size, root: hex(cp.root) } : {}),
    signed_at: new Date(seal.timestamp_ms).toISOString(),
  };
}
