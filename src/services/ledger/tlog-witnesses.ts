import type { Ctx } from "../../context.js";
import { notFound } from "../../errors/api-error.js";
import { cosignatureDate } from "../../formats/tlog/cosignature.js";
import { parseVkey } from "../../formats/tlog/keys.js";
import { ML_DSA_44 } from "../../formats/tlog/ml-dsa.js";
import { lastCosignatures, originOf } from "../../store/ledger/tlog-checkpoints.js";

/** A configured witness as the log shows it: who, with which key, and what it last cosigned. */
export interface WitnessStatus {
  name: string;
  vkey: string;
  algorithm: "Ed25519" | "ML-DSA-44";
  /** The largest tree of this log it cosigned (0: none yet). */
  last_cosigned_size: number;
  /**
   * Its cosignature's own timestamp (RFC 3339), empty before its first, and for a time RFC 3339
   * cannot write (stored before such cosignatures were refused: `workers/witnessing.ts`).
   */
  last_cosigned_at: string;
}

/**
 * The witnesses each checkpoint of the log is submitted to, the quorum that makes its records
 * UNEQUIVOCAL, and each witness's newest cosignature. Public, as the checkpoint that carries
 * their cosignatures is; the witnesses' submission URLs are the operator's and stay unsaid.
 */
export async function witnessStatus(
  ctx: Pick<Ctx, "db" | "config">,
  tenantId: string,
): Promise<{ quorum: number; witnesses: WitnessStatus[] }> {
  if (!(await originOf(ctx.db, tenantId))) throw notFound("log");
  const configured = ctx.config.witnesses;
  const last = new Map(
    (
      await lastCosignatures(
        ctx.db,
        tenantId,
        configured.map((w) => w.name),
      )
    ).map((c) => [c.witness, c]),
  );
  return {
    quorum: ctx.config.witnessQuorum,
    witnesses: configured.map((w) => {
      const c = last.get(w.name);
      return {
        name: w.name,
        vkey: w.vkey,
        algorithm: parseVkey(w.vkey).type === ML_DSA_44 ? "ML-DSA-44" : "Ed25519",
        last_cosigned_size: c?.size ?? 0,
        last_cosigned_at: (c && cosignatureDate(c.timestamp_s)) ?? "",
      };
    }),
  };
}
