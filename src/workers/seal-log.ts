import { consistencyProofIndices } from "../core/log/mmr-proof.js";
import { buildSeal } from "../core/log/seal.js";
import { parseIdTimestamp } from "../formats/ledger/idtimestamp.js";
import { verifyConsistency } from "../formats/mmr/consistency.js";
import { peakIndices } from "../formats/mmr/indices.js";
import { type LoadedKey, signedWith } from "../keys/keyring.js";
import type { LogGuard } from "../keys/log-guard.js";
import type { SignedBasis } from "../keys/signed-basis.js";
import type { Queryable } from "../store/drivers/db.js";
import { loadLog, lockLog, readNodes } from "../store/ledger/ledger.js";
import { getSeal, insertSeal } from "../store/ledger/seals.js";
import { markSealUnwitnessed } from "../store/ledger/tlog-checkpoints.js";
import { confirmSealedFreeEvents } from "../store/records/free-events.js";
import type { Standby, StandbyLog } from "../store/replication/standby.js";
import {
  type CheckpointKey,
  type PendingCheckpoint,
  prepareCheckpoint,
  signCheckpoint,
} from "./checkpoint.js";

export interface SealKey {
  /** The seal key as the keyring loaded it (its signer made once, then reused). */
  key: Pick<LoadedKey, "kid" | "alg" | "sign" | "signSync">;
  issuer: string;
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

async function nodesAt(tx: Queryable, tenantId: string, indices: number[]): Promise<Map<number, Uint8Array>> {
  const nodes = await readNodes(tx, tenantId, indices);
  for (const i of indices) if (!nodes.has(i)) throw new Error(`log ${tenantId} is missing node ${i}`);
  return nodes;
}

/**
 * How far a log may be signed: all of it (undefined) without a standby; with one, what the
 * standby has applied, or "nothing" when it cannot be read or is not the primary's standby. A
 * seal made of rows the standby lacks would, after a failover to it, be a signed state the
 * promoted database does not hold: the next checkpoint would fork from the witnessed one.
 */
export async function signingLimit(
  standby: Pick<Standby, "logOn"> | undefined,
  tenantId: string,
): Promise<StandbyLog | undefined | "nothing"> {
  if (!standby) return undefined;
  return (await standby.logOn(tenantId)) ?? "nothing";
}

/**
 * Seals a log at its size once it holds the log's lock (a committer's batch in progress
 * finishes first): checks consistency with the previous seal first (a seal must never
 * contradict an earlier one), signs the MMR state, and moves the asset-free records it
 * covers to CONFIRMED (asset events derive it from the seal), and publishes the C2SP checkpoint
 * of the same entries' RFC 9162 tree. Returns the new sealed size,
 * or undefined if there was nothing new to seal.
 */
export async function sealLog(
  tx: Queryable,
  tenantId: string,
  key: SealKey,
  checkpoint?: CheckpointKey,
  guard?: Pick<LogGuard, "maySign" | "signed" | "basis">,
  /** At most this much of the log (the standby's, `signingLimit`): its size and last idtimestamp. */
  upTo?: StandbyLog,
): Promise<number | undefined> {
  await lockLog(tx, tenantId);
  const current = await loadLog(tx, tenantId);
  // The standby's log is a prefix of the primary's (it replays the primary's WAL): its size is
  // one the log had, whose peaks and tree nodes the primary still holds.
  const log = upTo && upTo.mmr_size < current.mmr_size ? upTo : current;
  const size = log.mmr_size;
  if (size === 0) return undefined;
  const peakIdx = peakIndices(size);
  const prev = await getSeal(tx, tenantId);
  if (prev && prev.mmr_size >= size) return undefined;
  // Nothing is signed for a log whose database is behind, or disagrees with, what was signed last.
  if (guard && !(await guard.maySign(tx, tenantId, prev))) return undefined;
  const paths = prev ? consistencyProofIndices(prev.mmr_size, size) : [];
  const nodes = await nodesAt(tx, tenantId, [...peakIdx, ...paths.flat()]);
  const get = (i: number) => nodes.get(i) as Uint8Array;
  const peaks = peakIdx.map(get);
  if (prev) {
    // The previous seal's peaks as its signature gives them (the guard checks it), not the row's
    // column: a seal extends what the service signed, not what the database says it signed.
    const prevPeaks = guard
      ? await guard.basis.sealPeaks("seal", prev)
      : prev.peaks.map((p) => new Uint8Array(Buffer.from(p, "base64")));
    const proof = paths.map((path) => path.map(get));
    if (!verifyConsistency(prev.mmr_size, size, prevPeaks, peaks, proof)) {
      const reason = `log ${tenantId} is not consistent with its seal at ${prev.mmr_size}`;
      throw guard ? guard.basis.refuse("seal", tenantId, reason) : new Error(reason);
    }
  }
  const timestampMs = Date.now();
  const cp = checkpoint && (await prepareCheckpoint(tx, tenantId, size, checkpoint, guard?.basis));
  // Kept with the keys (and, when shared, made the log's head) before anything is signed: a later
  // restore of an older database is found out whatever the database says, and a second service
  // signing this log over another database is refused here, before it signs.
  await guard?.signed(tx, {
    tenant_id: tenantId,
    mmr_size: size,
    peaks: peaks.map(b64),
    ...(cp ? { tree_size: cp.size, root: Buffer.from(cp.root).toString("hex") } : {}),
    signed_at: new Date(timestampMs).toISOString(),
  });
  const { id, epoch } = parseIdTimestamp(log.last_idtimestamp);
  const seal = await signedWith(key.key, (signer) =>
    buildSeal(
      {
        kid: key.key.kid,
        issuer: key.issuer,
        logId: `tenant/${tenantId}`,
        state: { mmrSize: size, timestampMs, idtimestamp: id, epoch, peaks },
      },
      signer,
    ),
  );
  await insertSeal(tx, {
    tenant_id: tenantId,
    mmr_size: size,
    seal,
    peaks: peaks.map(b64),
    timestamp_ms: timestampMs,
    idtimestamp: log.last_idtimestamp,
  });
  guard?.basis.signedSeal({ tenant_id: tenantId, mmr_size: size, seal }, peaks);
  if (checkpoint) await publishCheckpoint(tx, tenantId, size, checkpoint, cp, guard?.basis);
  // Asset events are CONFIRMED by the seal's very existence (derived when read); asset-free
  // events still carry their status on the row.
  await confirmSealedFreeEvents(tx, tenantId, size);
  return size;
}

/**
 * After the seal: the seal waits, unwitnessed, for a quorum to cosign a checkpoint covering it when
 * witnesses are configured (its row must exist first: the checkpoint was prepared before it); the
 * checkpoint is signed, then the index's revision at it (which never fails the seal).
 */
async function publishCheckpoint(
  tx: Queryable,
  tenantId: string,
  size: number,
  checkpoint: CheckpointKey,
  cp: PendingCheckpoint | undefined,
  basis: SignedBasis | undefined,
): Promise<void> {
  if (!checkpoint.witnessed) await markSealUnwitnessed(tx, tenantId, size);
  if (!cp) return;
  await signCheckpoint(tx, tenantId, size, cp, checkpoint, basis);
  await checkpoint.index?.atSeal(tx, tenantId, cp, checkpoint.signing.ed25519, basis);
}
