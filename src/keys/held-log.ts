import { leafCount } from "../formats/mmr/indices.js";
import { missingEnds, type SignedLogState } from "./signed-state.js";

/** The database's side of a comparison: its log's MMR size and its tree's size. */
export interface DatabaseLog {
  mmr_size: number;
  tree_size: number;
}

/** A log whose database does not hold what the service last signed for it: nothing more is signed for it. */
export interface HeldLog {
  tenant_id: string;
  /**
   * `behind`: the database is smaller than what was signed; `fork`: it holds other entries at a
   * signed size; `head`: another service moved the log's shared head to one this database does not
   * hold (`SharedHead`); `refused`: what the database shows of the signed past does not verify
   * (`SignedBasis.refuse`), so this log is not signed until it does.
   */
  kind: "behind" | "fork" | "head" | "refused";
  reason: string;
  signed: SignedLogState;
  database: DatabaseLog;
  /**
   * The leaf indexes signed and missing from the database, [from, to): the end excluded, as the
   * key directory's accepted log has always stored it. Null for a fork.
   */
  missing_leaves: [number, number] | null;
  /** The first and the last leaf index missing (both included), as the reason names them; null for a fork. */
  first_missing: number | null;
  last_missing: number | null;
}

/**
 * The database is behind what was signed (a smaller MMR, or a smaller tree where a tree size was
 * signed): the leaves it lacks are those past the fewer of its MMR's and its tree's, up to the
 * more the service signed in either. The reason names the same leaves the fields hold.
 */
export function heldBehind(s: SignedLogState, database: DatabaseLog): HeldLog {
  const signedLeaves = Math.max(leafCount(s.mmr_size), s.tree_size ?? 0);
  const mmrLeaves = leafCount(database.mmr_size);
  const have = s.tree_size === undefined ? mmrLeaves : Math.min(mmrLeaves, database.tree_size);
  const missing: [number, number] = [have, signedLeaves];
  const ends = missingEnds(missing);
  const which =
    ends.first_missing === ends.last_missing
      ? `entry ${ends.first_missing} was acknowledged and is missing`
      : `entries ${ends.first_missing} to ${ends.last_missing} were acknowledged and are missing`;
  return {
    tenant_id: s.tenant_id,
    kind: "behind",
    reason: `log tenant/${s.tenant_id}: the database holds ${have} entries but this service signed ${signedLeaves} (seal of MMR size ${s.mmr_size}${s.root ? `, checkpoint root ${s.root}` : ""}, ${s.signed_at}): ${which} (missing_leaves [${missing[0]}, ${missing[1]}), the end excluded; a restore of an older backup?)`,
    signed: s,
    database,
    missing_leaves: missing,
    ...ends,
  };
}

/** The database holds other entries than the service signed at a signed size. */
export function heldFork(s: SignedLogState, database: DatabaseLog, reason: string): HeldLog {
  return {
    tenant_id: s.tenant_id,
    kind: "fork",
    reason: `log tenant/${s.tenant_id}: ${reason}`,
    signed: s,
    database,
    missing_leaves: null,
    ...missingEnds(null),
  };
}
