import { toBase64 } from "../../formats/crypto/bytes.js";
import {
  type ConsentRole,
  consentOf,
  consentRole,
  lifecycleOrder,
  type PurposeConsent,
  purposesNamed,
} from "../../formats/lifecycle/consent.js";
import { LookupError, type PublicRecord } from "../public-api.js";
import type { EvidenceSource } from "./source.js";

/** One consent record of the answer, with its receipt (MMR profile, base64) once sealed. */
interface ConsentEvidence {
  record: PublicRecord;
  role: ConsentRole;
  purposes: string[];
  /** null while the record is not yet committed and sealed. */
  receipt: string | null;
}

/** The consent of a vCon, per purpose, with the records that say so and their receipts. */
export interface ConsentAnswer {
  vcon: string;
  /** The tenancy whose records decide (`tenant/<uuid>`): the caller's. */
  holder: string;
  consents: PurposeConsent[];
  records: ConsentEvidence[];
  /** Consent records of other tenancies the caller may read (shared with it): they decide nothing here. */
  foreign: Array<{ identity: string; tenant: string; role: ConsentRole; purposes: string[] }>;
}

/**
 * The consent of one vCon, derived from the records the caller may read (`source`: its asset
 * events recording the vCon, as the evidence bundle gathers them, so it says no more than a list
 * would) and decided by those of `holder` alone (the caller's tenancy): for `purpose`, or for
 * every purpose its records name; each consent record with its receipt, the proof a caller
 * checks offline.
 */
export async function buildConsent(
  source: EvidenceSource,
  uuid: string,
  holder: string,
  purpose?: string,
): Promise<ConsentAnswer> {
  const events = await source.subjectEvents(`vcon://${uuid}`);
  if (events.length === 0) throw new LookupError(`vcon://${uuid} has no records you may read`, 404);
  // Lists answer newest first; the derivation breaks ties of acceptance time "as given", which
  // must be the order the service accepted them in: a grant and its revocation written by one
  // group share their time, and read newest first the grant would outlive its revocation until
  // both are committed (the log position then decides).
  const ordered = lifecycleOrder([...events].reverse());
  const own = ordered.filter((r) => r.tenant === holder);
  const purposes = purpose !== undefined ? [purpose] : purposesNamed(own);
  const consents = purposes.map((p) => consentOf(ordered, p, ordered.length, holder));
  const wanted = new Set(consents.flatMap((c) => c.records.map((r) => r.identity)));
  const records: ConsentEvidence[] = [];
  for (const r of ordered) {
    const role = consentRole(r);
    if (!role || !wanted.has(r.identity)) continue;
    // None yet (not committed or not sealed): the record counts, its proof is to come.
    const receipt = await source.receipt(r.identity);
    records.push({
      record: r.record,
      role,
      purposes: r.lifecycle.purposes,
      receipt: receipt ? toBase64(receipt) : null,
    });
  }
  const foreign = ordered.flatMap((r) => {
    const role = consentRole(r);
    return role && r.tenant !== holder
      ? [{ identity: r.identity, tenant: r.tenant, role, purposes: r.lifecycle.purposes }]
      : [];
  });
  return { vcon: `vcon://${uuid}`, holder, consents, records, foreign };
}
