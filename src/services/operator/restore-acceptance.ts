import type { Ctx } from "../../context.js";
import type { HeldLog } from "../../keys/held-log.js";
import { compareWithSigned, stateOf } from "../../keys/signed-compare.js";
import type { AcceptedRestore, SignedLogState } from "../../keys/signed-state.js";
import { getTenancy } from "../../store/identity/tenancies.js";
import { getSeal } from "../../store/ledger/seals.js";
import { recordServiceEvent } from "../ledger/service-events.js";

/** What `archivist keys accept-restore` found and did. */
export type RestoreAcceptance =
  | { outcome: "no-log" }
  | { outcome: "consistent" }
  | { outcome: "accepted"; held: HeldLog; acceptance: AcceptedRestore; recordedAs: string };

/** The attributes of an accepted restore's record in the log (strings, as every service event's). */
function acceptanceEvent(held: HeldLog, a: AcceptedRestore): Record<string, string> {
  const n = (v: number | null | undefined) => (v === null || v === undefined ? "" : String(v));
  return {
    arc_display_type: "archivist_restore_accepted",
    arc_description: held.reason,
    accepted_at: a.accepted_at,
    signed_mmr_size: String(held.signed.mmr_size),
    signed_tree_size: n(held.signed.tree_size),
    signed_root: held.signed.root ?? "",
    signed_at: held.signed.signed_at,
    database_mmr_size: String(held.database.mmr_size),
    database_tree_size: String(held.database.tree_size),
    // Both ends included, as the reason names them ("7-9"; the key directory keeps [7, 10)).
    missing_leaves: held.first_missing === null ? "" : `${held.first_missing}-${held.last_missing}`,
    first_missing: n(held.first_missing),
    last_missing: n(held.last_missing),
    note: a.note,
  };
}

/**
 * The operator accepts that the database no longer holds what the service signed for a log:
 * recorded in the key directory (its accepted log) and as an event in the log itself, and the
 * signed state becomes the database's newest seal, so the service signs the log again. A log
 * that does not exist is said to be so, not "nothing to accept".
 */
export async function acceptRestore(
  ctx: Pick<Ctx, "db" | "logGuard" | "log" | "writePath">,
  tenant: string,
  note: string,
): Promise<RestoreAcceptance> {
  if (!(await getTenancy(ctx.db, tenant))) return { outcome: "no-log" };
  const signed = await ctx.logGuard.states.read(tenant);
  const held = signed && (await compareWithSigned(ctx.db, signed));
  if (!held) return { outcome: "consistent" };
  const seal = await getSeal(ctx.db, tenant);
  const now: SignedLogState = seal
    ? await stateOf(ctx.db, tenant, seal)
    : { tenant_id: tenant, mmr_size: 0, peaks: [], signed_at: new Date().toISOString() };
  const acceptance: AcceptedRestore = {
    tenant_id: tenant,
    accepted_at: new Date().toISOString(),
    signed: held.signed,
    database: held.database,
    missing_leaves: held.missing_leaves,
    first_missing: held.first_missing,
    last_missing: held.last_missing,
    reason: held.reason,
    note,
  };
  await ctx.logGuard.states.recordAcceptance(acceptance);
  await ctx.logGuard.accept(now);
  const e = await recordServiceEvent(ctx, tenant, acceptanceEvent(held, acceptance));
  ctx.log.warn(
    { ...acceptance, recorded_as: e.identity },
    "restore accepted: the log is signed again from its database",
  );
  return { outcome: "accepted", held, acceptance, recordedAs: String(e.identity) };
}
