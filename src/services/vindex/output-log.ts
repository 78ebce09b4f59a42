import type { Ctx, Principal } from "../../context.js";
import { formatVkey } from "../../core/log/note-sign.js";
import { badRequest, forbidden, notFound } from "../../errors/api-error.js";
import { toBase64, toHex } from "../../formats/crypto/bytes.js";
import { parseVkey } from "../../formats/tlog/keys.js";
import { canonicalKey, indexOrigin } from "../../formats/vindex/map.js";
import { cosignaturesOf } from "../../store/ledger/tlog-checkpoints.js";
import { indexCheckpoint, latestRevision, revisionsBetween } from "../../store/ledger/vindex.js";
import { outputConsistency } from "../../vindex/output-log.js";
import { viewFor } from "../access/caller-view.js";
import { logVkey } from "../ledger/tlog.js";

/** The index output log's newest signed checkpoint (a C2SP note). */
export async function indexCheckpointNote(ctx: Pick<Ctx, "reads">, tenantId: string): Promise<string> {
  const cp = await indexCheckpoint(ctx.reads, tenantId);
  if (!cp) throw notFound("index checkpoint");
  const cosignatures = await cosignaturesOf(ctx.reads, tenantId, cp.size, "vindex");
  return `${cp.note}${cosignatures.map((c) => c.signature_line).join("")}`;
}

// Revisions served by one request at most.
const PAGE = 1000;

/**
 * Revisions [from, to) of the output log, public like the log's tiles: log sizes and roots are
 * the log's own public checkpoints', and an index root or the VRF key tells nothing of any key.
 */
export async function indexRevisions(ctx: Pick<Ctx, "reads">, tenantId: string, from: number, to?: number) {
  return ctx.reads.transaction(async (db) => {
    const latest = await latestRevision(db, tenantId);
    const size = latest ? latest.seq + 1 : 0;
    const end = Math.min(to ?? size, size, from + PAGE);
    const rows = await revisionsBetween(db, tenantId, from, end);
    return {
      size,
      revisions: rows.map((r) => ({
        seq: r.seq,
        log_size: r.log_size,
        log_root: toHex(r.log_root),
        index_root: toHex(r.index_root),
        vrf_key: toHex(r.vrf_key),
      })),
    };
  });
}

/** The RFC 9162 consistency proof between two sizes of the output log (hex). */
export async function indexConsistency(ctx: Pick<Ctx, "reads">, tenantId: string, from: number, to: number) {
  return ctx.reads.transaction(async (db) => {
    const latest = await latestRevision(db, tenantId);
    const size = latest ? latest.seq + 1 : 0;
    if (from < 1 || from > to || to > size)
      throw badRequest(`from and to must satisfy 1 ≤ from ≤ to ≤ ${size}`);
    return { from, to, proof: (await outputConsistency(db, tenantId, from, to)).map(toHex) };
  });
}

// Keys whose positions one request asks for at most.
export const POSITIONS_PAGE = 1000;

/**
 * The VRF proofs of keys' positions, for an auditor rebuilding the index (`archivist index
 * rebuild`). Only to a caller granted the tenancy whole: a position lets one test a key against
 * the index, which is what the index keeps from anyone who may not read the records.
 */
export async function keyPositions(
  ctx: Pick<Ctx, "db" | "caches" | "vindex">,
  caller: Principal,
  keys: string[],
) {
  if (!(await viewFor(ctx, caller)).wholeIn(caller.tenantId))
    throw forbidden("positions are given to a caller granted the whole tenancy only");
  const log = `tenant/${caller.tenantId}`;
  const { positions } = ctx.vindex;
  return {
    log,
    vrf_key: toHex(positions.publicKey),
    positions: keys.map((raw) => {
      const key = canonicalKey(raw);
      if (!key) throw badRequest(`not a key of the index: ${raw.slice(0, 80)}`);
      const pi = positions.prove(log, key);
      return { key, vrf_proof: pi === null ? null : toBase64(pi) };
    }),
  };
}

/**
 * The index output log's verification key (signed-note vkey): the log's Ed25519 key under the
 * index's origin, for a witness to be given beside the log's (`archivist witness --log`).
 */
export async function indexVkey(ctx: Pick<Ctx, "reads" | "keys">, tenantId: string): Promise<string> {
  const vkey = parseVkey(await logVkey(ctx, tenantId));
  return formatVkey(indexOrigin(vkey.name), vkey.type, vkey.publicKey);
}
