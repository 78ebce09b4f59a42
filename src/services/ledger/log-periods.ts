import type { Ctx } from "../../context.js";
import { periodsOf } from "../../store/log-periods.js";
import { archivedObject, withTreeNodes } from "../../store/period-archive.js";
import { checkpointAt, cosignaturesOf, publishedCheckpoint } from "../../store/tlog-checkpoints.js";
import { consistencyProof, inclusionProof, notFound } from "../../verify/primitives.js";

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

async function noteWithCosignatures(ctx: Pick<Ctx, "db">, tenantId: string, size: number, note: string) {
  const cosignatures = await cosignaturesOf(ctx.db, tenantId, size);
  return `${note}${cosignatures.map((c) => c.signature_line).join("")}`;
}

/**
 * The log's chain of period roots, public like its checkpoints: every period, each closed one
 * with its final checkpoint, the RFC 9162 consistency proof from it to the published checkpoint
 * (the head) and the inclusion proof of the next period's link entry in the head. A period closed
 * after the head (witnesses not yet caught up) comes without proofs until the head passes it.
 */
export async function periodChain(
  ctx: Pick<Ctx, "blobs" | "db">,
  tenantId: string,
): Promise<{ head: string; periods: PeriodAnswer[] }> {
  const head = await publishedCheckpoint(ctx.db, tenantId);
  if (!head) throw notFound("checkpoint");
  const rows = await periodsOf(ctx.db, tenantId);
  if (rows.length === 0) {
    return {
      head: await noteWithCosignatures(ctx, tenantId, head.size, head.note),
      periods: [{ period: 0, start: 0 }],
    };
  }
  const provable = rows.filter((r) => r.end_size !== undefined && r.end_size < head.size);
  const proofs = await withTreeNodes(ctx, tenantId, (get) =>
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
    const final = await checkpointAt(ctx.db, tenantId, r.end_size);
    const k = provable.indexOf(r);
    periods.push({
      period: r.period,
      start: r.start_size,
      end: r.end_size,
      ...(r.closed_at ? { closed_at: r.closed_at.toISOString() } : {}),
      ...(final ? { checkpoint: await noteWithCosignatures(ctx, tenantId, r.end_size, final.note) } : {}),
      ...(k >= 0 ? proofs[k] : {}),
    });
  }
  return { head: await noteWithCosignatures(ctx, tenantId, head.size, head.note), periods };
}

/**
 * A closed period's final checkpoint (with the cosignatures it had when archived): from object
 * storage once the period moved there, else from the database. It never changes.
 */
export async function periodCheckpoint(
  ctx: Pick<Ctx, "blobs" | "db">,
  tenantId: string,
  period: number,
): Promise<string> {
  const archived = await archivedObject(ctx, tenantId, `periods/${period}/checkpoint`);
  if (archived) return new TextDecoder().decode(archived);
  const row = (await periodsOf(ctx.db, tenantId)).find((p) => p.period === period);
  const final = row?.end_size === undefined ? undefined : await checkpointAt(ctx.db, tenantId, row.end_size);
  if (!final) throw notFound("closed period");
  return noteWithCosignatures(ctx, tenantId, final.size, final.note);
}
