import { randomUUID } from "node:crypto";
import type { Ctx } from "../context.js";
import { formatIdTimestamp, IdTimestampGenerator } from "../core/log/idtimestamp.js";
import { appendLeaves, appendNodesNeeded, knownNode } from "../core/log/mmr-append.js";
import { nodeSha256 } from "../core/node/crypto.js";
import { CodedError } from "../formats/coded-error.js";
import { leafCount } from "../formats/mmr/indices.js";
import * as tree from "../formats/rfc9162/index.js";
import { inclusionProof } from "../formats/rfc9162/tree.js";
import { periodLinkLeaf } from "../formats/tlog/period-link.js";
import type { LogGuard } from "../keys/log-guard.js";
import type { SignedBasis } from "../keys/signed-basis.js";
import type { Queryable } from "../store/drivers/db.js";
import { loadLog, lockLog, readNodes, writeCommit } from "../store/ledger/ledger.js";
import { logsDueToClose, openPeriod, recordClose } from "../store/ledger/log-periods.js";
import { getSeal } from "../store/ledger/seals.js";
import { checkpointAt } from "../store/ledger/tlog-checkpoints.js";
import { withNodes } from "../store/ledger/tlog-tiles.js";
import type { StandbyLog } from "../store/replication/standby.js";
import { workerId } from "./commit-batch.js";
import type { SealKeys } from "./seal-keys.js";
import { sealLog, signingLimit } from "./seal-log.js";
import { readTreeFrontier, treeNodesAfter } from "./tlog-append.js";

export interface ClosedPeriod {
  period: number;
  start: number;
  /** The closed period's final size: the index of the next period's link entry. */
  end: number;
  root: Uint8Array;
}

/** A period that cannot close yet (its tree still backfilled, no checkpoint at its size): run the close again later. */
class PeriodCloseError extends CodedError<"PERIOD_NOT_CLOSABLE"> {
  readonly code = "PERIOD_NOT_CLOSABLE";
}

/**
 * Closes the tenancy's open period, in the caller's one transaction (a crash anywhere leaves the
 * log as it was, and the close is simply run again): under the log's lock (a commit batch in
 * progress finishes first; later ones wait), seals the log at its size, which signs the period's
 * final checkpoint (submitted to the witnesses like any other, when configured); appends the
 * next period's link entry, committing that checkpoint's origin, size and root, to both trees;
 * records the close; and seals again, so the published checkpoint already holds the link.
 * Undefined when there is nothing to close (an empty log, or a period holding only its link).
 * With a standby (`upTo`, `signingLimit`) it closes only a log the standby holds whole, and the
 * link entry, which the standby cannot have before this transaction commits, is sealed later by
 * the sealer, once the standby has applied it.
 */
export async function closeLogPeriod(
  tx: Queryable,
  tenantId: string,
  keys: SealKeys,
  guard?: Pick<LogGuard, "maySign" | "signed" | "basis" | "periodOpened" | "signedOpenPeriod">,
  upTo?: StandbyLog,
): Promise<ClosedPeriod | undefined> {
  await lockLog(tx, tenantId);
  // A log the guard holds signs nothing, so its period cannot close: refused before anything is
  // written (its link entry would otherwise follow a final checkpoint never signed).
  if (guard && !(await guard.maySign(tx, tenantId, await getSeal(tx, tenantId))))
    throw new PeriodCloseError(
      `log ${tenantId} is held: its database disagrees with what the service last signed (a restore?), so nothing is signed or closed; see docs/keys.md (archivist keys accept-restore)`,
    );
  const log = await loadLog(tx, tenantId);
  const size = leafCount(log.mmr_size);
  const open = await openPeriod(tx, tenantId);
  if (guard) await periodNotBehindSigned(tenantId, open, guard);
  if (size <= open.start_size + (open.period > 0 ? 1 : 0)) return undefined;
  if (upTo && upTo.mmr_size < log.mmr_size)
    throw new PeriodCloseError(
      `log ${tenantId}: the standby holds ${leafCount(upTo.mmr_size)} of its ${size} entries; the period closes once it has them all`,
    );
  if (log.tree_size !== size)
    throw new PeriodCloseError(
      `log ${tenantId}'s tree is still being backfilled (${log.tree_size} of ${size} entries)`,
    );
  await sealLog(tx, tenantId, keys.seal, keys.checkpoint, guard);
  // The seal above, or an earlier one at this very size, made the final checkpoint.
  const final = await checkpointAt(tx, tenantId, size);
  if (!final)
    throw new PeriodCloseError(
      `log ${tenantId} has no checkpoint at ${size} entries to close the period with`,
    );
  // The root the link commits is the one the checkpoint's signature gives, and the open period's
  // row is believed only when its own link entry is in the signed tree (below).
  const finalRoot = guard ? await guard.basis.checkpointRoot("period_close", final) : final.root;
  if (guard) await periodRowFollowsSigned(tx, tenantId, open, size, finalRoot, guard.basis);
  const period = open.period + 1;
  const origin = guard ? signedOrigin(final) : final.origin;
  const leaf = periodLinkLeaf({ period, origin, size, root: finalRoot }, nodeSha256);
  const linkRecord = await appendLinkEntry(tx, tenantId, log.mmr_size, size, leaf);
  await recordClose(tx, {
    tenantId,
    period: open.period,
    startSize: open.start_size,
    endSize: size,
    root: finalRoot,
    linkRecord,
  });
  await guard?.periodOpened(tx, tenantId, period, size);
  // With a standby, the link entry waits for a later seal that the standby holds too.
  if (!upTo) await sealLog(tx, tenantId, keys.seal, keys.checkpoint, guard);
  return { period: open.period, start: open.start_size, end: size, root: finalRoot };
}

/**
 * Appends the next period's link entry at `size` to both trees, in `tx`, as a commit batch of one
 * would; the record id it is filed under is returned for the close's row.
 */
async function appendLinkEntry(
  tx: Queryable,
  tenantId: string,
  mmrSize: number,
  size: number,
  leaf: ReturnType<typeof periodLinkLeaf>,
): Promise<string> {
  const linkRecord = randomUUID();
  const id = new IdTimestampGenerator(workerId()).next();
  const known = await readNodes(tx, tenantId, appendNodesNeeded(mmrSize));
  const appended = appendLeaves(mmrSize, [leaf], knownNode(known, tenantId), nodeSha256);
  const treeNodes = treeNodesAfter(tenantId, size, [leaf], await readTreeFrontier(tx, tenantId, size));
  const idtimestamp = formatIdTimestamp(id, 1);
  await writeCommit(tx, {
    tenantId,
    firstNodeIndex: mmrSize,
    nodes: appended.nodes,
    entries: [
      {
        mmr_index: appended.leafIndices[0] as number,
        leaf_index: size,
        kind: "period",
        record_id: linkRecord,
        idtimestamp,
        leaf,
      },
    ],
    freeEntries: [],
    treeNodes,
    mmrSize: appended.newSize,
    lastIdtimestamp: idtimestamp,
    treeSize: size + 1,
    lastIndexByAsset: new Map(),
    queueSeqs: [],
    freeQueueSeqs: [],
  });
  return linkRecord;
}

/** A verified checkpoint's origin: its note's first line, which its signature covers (the row's column is not). */
const signedOrigin = (cp: { note: string }) => cp.note.slice(0, cp.note.indexOf("\n"));

/**
 * Refuses to close a period older than the one this service last opened (kept with the keys):
 * the period rows were deleted or rewritten, and closing again would sign a second link entry
 * for a period the signed log already holds (issue 60).
 */
async function periodNotBehindSigned(
  tenantId: string,
  open: { period: number; start_size: number },
  guard: Pick<LogGuard, "basis" | "signedOpenPeriod">,
): Promise<void> {
  const signed = await guard.signedOpenPeriod(tenantId);
  if (!signed) return;
  if (open.period > signed.period || (open.period === signed.period && open.start_size === signed.start_size))
    return;
  throw guard.basis.refuse(
    "period_close",
    tenantId,
    `the database's open period is ${open.period} from entry ${open.start_size}, but this service opened period ${signed.period} at entry ${signed.start_size}`,
  );
}

/**
 * Refuses (`SignedBasis.refuse`) to close a period whose row the signed log does not bear out:
 * a period after the first starts at its link entry, which commits the previous period's
 * number, size and signed final root, and that entry must be in the tree the final checkpoint signs.
 */
async function periodRowFollowsSigned(
  tx: Queryable,
  tenantId: string,
  open: { period: number; start_size: number },
  size: number,
  finalRoot: Uint8Array,
  basis: SignedBasis,
): Promise<void> {
  if (open.period === 0) {
    if (open.start_size === 0) return;
    throw basis.refuse(
      "period_close",
      tenantId,
      `period 0 is recorded as starting at entry ${open.start_size}`,
    );
  }
  const refuse = (why: string) =>
    basis.refuse(
      "period_close",
      tenantId,
      `the open period ${open.period}, from entry ${open.start_size}: ${why}`,
    );
  const previous = await checkpointAt(tx, tenantId, open.start_size);
  if (!previous || open.start_size >= size) throw refuse("no signed checkpoint ends the period before it");
  const previousRoot = await basis.checkpointRoot("period_close", previous);
  const link = tree.leafHash(
    periodLinkLeaf(
      { period: open.period, origin: signedOrigin(previous), size: open.start_size, root: previousRoot },
      nodeSha256,
    ),
    nodeSha256,
  );
  const at = open.start_size;
  const path = await withNodes(tx, tenantId, (get) => inclusionProof(at, size, get));
  if (!tree.verifyInclusion(at, size, link, path, finalRoot))
    throw refuse("its link entry is not in the tree the final checkpoint signs");
}

/**
 * Closes the open period of every log that has reached the configured size or age
 * (`ARCHIVIST_LOG_PERIOD_ENTRIES`, `ARCHIVIST_LOG_PERIOD_AGE_MS`), each in its own transaction.
 * Returns how many it closed. A log held by the log guard (a restore found out) is left alone.
 */
export async function closeDuePeriods(
  ctx: Pick<Ctx, "db" | "config" | "logGuard" | "log" | "standby">,
  keys: SealKeys,
): Promise<number> {
  let closed = 0;
  for (const tenantId of await logsDueToClose(
    ctx.db,
    ctx.config.logPeriodEntries,
    ctx.config.logPeriodAgeMs,
  )) {
    if (ctx.logGuard.isHeld(tenantId)) continue;
    try {
      const upTo = await signingLimit(ctx.standby, tenantId);
      if (upTo === "nothing") continue;
      const c = await ctx.logGuard.signing(tenantId, () =>
        ctx.db.transaction((tx) => closeLogPeriod(tx, tenantId, keys, ctx.logGuard, upTo)),
      );
      if (c) {
        closed++;
        ctx.log.info({ tenant: tenantId, period: c.period, size: c.end }, "log period closed");
      }
    } catch (err) {
      if (err instanceof PeriodCloseError)
        ctx.log.warn({ tenant: tenantId, err: err.message }, "log period not closed yet");
      // Another log's period is closed on whatever this one's fault.
      else ctx.logGuard.failed(tenantId, "period close", err);
    }
  }
  return closed;
}
