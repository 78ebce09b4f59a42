import type { Ctx } from "../../context.js";
import { consistencyProof } from "../../core/log/tree-proof.js";
import { notFound } from "../../errors/api-error.js";
import { inclusionProof } from "../../formats/rfc9162/tree.js";
import { archivedObject, withTreeNodes } from "../../store/archive/period-archive.js";
import type { Queryable } from "../../store/drivers/db.js";
import { type PeriodRow, periodsOf } from "../../store/ledger/log-periods.js";
import { checkpointAt, cosignaturesOf, publishedCheckpoint } from "../../store/ledger/tlog-checkpoints.js";
import { readNodeSource } from "./node-source.js";

const b64 = (h: Uint8Array) => Buffer.from(h).toString("base64");

/** A log's period as `GET …/tlog/periods` answers it (the verifier's `ChainPeriod`, in the API's case). */
export interface PeriodAnswer {
  period: number;
  start: number;
  end?: number;
  closed_at?: string;
  checkpoint?: string;
  consistency?: string[];
  link_inclusion?: string[];
}

async function noteWithCosignatures(db: Queryable, tenantId: string, size: number, note: string) {
  const cosignatures = await cosignaturesOf(db, tenantId, size);
  return `${note}${cosignatures.map((c) => c.signature_line).join("")}`;
}

/**
 * The log's chain of period roots, public like its checkpoints: every period, each closed one
 * with its final checkpoint, the RFC 9162 consistency proof from it to the published checkpoint
 * (the head) and the inclusion proof of the next period's link entry in the head. A period closed
 * after the head (witnesses not yet caught up) comes without proofs until the head passes it.
 */
export async function periodChain(
  ctx: Pick<Ctx, "blobs" | "reads">,
  tenantId: string,
): Promise<{ head: string; periods: PeriodAnswer[] }> {
  // Public reads that tolerate lag: a replica behind the primary answers an older head with the
  // periods closed by then, each proof reaching that head.
  const source = readNodeSource(ctx);
  const db = source.db;
  const head = await publishedCheckpoint(db, tenantId);
  if (!head) throw notFound("checkpoint");
  const rows = await periodsOf(db, tenantId);
  if (rows.length === 0) {
    return {
      head: await noteWithCosignatures(db, tenantId, head.size, head.note),
      periods: [{ period: 0, start: 0 }],
    };
  }
  const provable = rows.filter((r) => r.end_size !== undefined && r.end_size < head.size);
  const proofs = await withTreeNodes(source, tenantId, (get) =>
    provable.map((r) => ({
      consistency: consistencyProof(r.end_size as number, head.size, get).map(b64),
      link_inclusion: inclusionProof(r.end_size as number, head.size, get).map(b64),
    })),
  );
  const periods: PeriodAnswer[] = [];
  for (const r of rows) {
    if (r.end_size === undefined) {
      periods.push({ period: r.period, start: r.start_size });
      continue;
    }
    const final = await checkpointAt(db, tenantId, r.end_size);
    const k = provable.indexOf(r);
    periods.push({
      period: r.period,
      start: r.start_size,
      end: r.end_size,
      ...(r.closed_at ? { closed_at: r.closed_at.toISOString() } : {}),
      ...(final ? { checkpoint: await noteWithCosignatures(db, tenantId, r.end_size, final.note) } : {}),
      ...(k >= 0 ? proofs[k] : {}),
    });
  }
  return { head: await noteWithCosignatures(db, tenantId, head.size, head.note), periods };
}

/**
 * A closed period's final checkpoint (with the cosignatures it had when archived): from object
 * storage once the period moved there, else from the database. It never changes.
 */
export async function periodCheckpoint(
  ctx: Pick<Ctx, "blobs" | "reads">,
  tenantId: string,
  period: number,
): Promise<string> {
  const source = readNodeSource(ctx);
  const db = source.db;
  const archived = await archivedObject(source, tenantId, `periods/${period}/checkpoint`);
  if (archived) return new TextDecoder().decode(archived);
  const row = (await periodsOf(db, tenantId)).find((p) => p.period === period);
  const final = row?.end_size === undefined ? undefined : await checkpointAt(db, tenantId, row.end_size);
  if (!final) throw notFound("closed period");
  return noteWithCosignatures(db, tenantId, final.size, final.note);
}

/** A log period as `archivist log periods` shows it. */
export interface PeriodSummary {
  period: number;
  start: number;
  end?: number;
  root?: string;
  closed_at?: string;
  archived_at?: string;
  dropped_at?: string;
}

/** A log's periods, oldest first; a log never closed has one, period 0 from entry 0, still open. */
export async function logPeriods(ctx: Pick<Ctx, "db">, tenantId: string): Promise<PeriodSummary[]> {
  const rows = await periodsOf(ctx.db, tenantId);
  const never: PeriodRow = {
    period: 0,
    start_size: 0,
    end_size: undefined,
    root: undefined,
    opened_at: new Date(0),
    closed_at: undefined,
    archived_at: undefined,
    dropped_at: undefined,
  };
  return (rows.length > 0 ? rows : [never]).map((p) => ({
    period: p.period,
    start: p.start_size,
    ...(p.end_size === undefined ? {} : { end: p.end_size }),
    ...(p.root ? { root: Buffer.from(p.root).toString("hex") } : {}),
    ...(p.closed_at ? { closed_at: p.closed_at.toISOString() } : {}),
    ...(p.archived_at ? { archived_at: p.archived_at.toISOString() } : {}),
    ...(p.dropped_at ? { dropped_at: p.dropped_at.toISOString() } : {}),
  }));
}
