import type { PublicKey } from "../verify/index.js";
import { consentReport } from "../verify/index.js";
import { consentReportView } from "./consent-report-view.js";
import type { Trail } from "./console-trail.js";

/**
 * The vCon's consent and processing, read from the trail's records whose receipts verified in
 * this browser, saying whose keys judged them (`roots`: the auditor's roots applied, described;
 * none: the keys the service serves); the exported bundle proves the same offline.
 */
export function consentView(
  t: Trail,
  served: Map<string, PublicKey> | undefined,
  roots: string[],
): HTMLElement {
  // The asset events, as the vCon's bundle holds them: a link that also writes an asset-free copy
  // of each event (vcon-server's datatrails link) would otherwise count every consent twice.
  const events = t.steps.filter((x) => x.facts.kind === "asset event");
  const proven = events.filter((x) => x.receipt.ok);
  const leftOut = events
    .filter((x) => !x.receipt.ok)
    .map((x) => ({ identity: x.facts.identity, reason: x.receipt.ok ? "" : x.receipt.reason }));
  return consentReportView(
    // Transfers' proofs of the other party are checked under the served keys too: "carried" at best.
    consentReport(
      t.title,
      proven.map((x) => x.record),
      leftOut,
      { evidence: served },
    ),
    roots.length
      ? `receipts verified in this browser and judged by your trust roots (${roots.join(", ")})`
      : "receipts verified in this browser under the keys this service serves (not pinned); give your trust roots, or export the bundle to prove it with keys you pin",
  );
}
