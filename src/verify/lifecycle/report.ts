/**
 * The consent and processing report of one vCon: for each purpose its grants, reviews and
 * revocations; every processing event, and each one that came after a revocation or without a
 * grant flagged as a violation. It is a function of the records alone, so it is made from an
 * evidence bundle after the bundle is verified, from the records whose receipts verified and
 * nothing else: whoever holds the bundle and the service's keys makes the same report offline
 * (the CLI, /verify, the console).
 */

import { consentHolder, consentRole, lifecycleOrder } from "../../formats/lifecycle/consent.js";
import { type BreachDeadlines, breachStates, DEFAULT_BREACH_DEADLINES } from "./breach.js";
import { type CustodyKeys, custodyHops } from "./custody.js";
import type { ConsentReport, ReportOptions, TrailCompleteness } from "./report-model.js";
import { erasuresOf, purposeReports, recordFindings, step, text } from "./report-records.js";

export type { ConsentReport, ReportOptions, ReportStep, TrailCompleteness } from "./report-model.js";
export { consentReportText } from "./report-text.js";

/**
 * The report of `subject` from its proven records (`proven`, as the API returns them) and the
 * records left out of it with the reason. Pure: the same records make the same report anywhere.
 */
export function consentReport(
  subject: string,
  proven: ReadonlyArray<Record<string, unknown>>,
  leftOut: Array<{ identity: string; reason: string }> = [],
  keys: CustodyKeys = {},
  opts: ReportOptions = {},
): ConsentReport {
  const nowMs = opts.nowMs ?? Date.now();
  const deadlines: BreachDeadlines = opts.breachDeadlines ?? DEFAULT_BREACH_DEADLINES;
  const ordered = lifecycleOrder(proven);
  const holder = consentHolder(ordered, opts.holder);
  const own = ordered.filter((r) => r.tenant === holder);
  const found = recordFindings(ordered);
  return {
    subject,
    completeness: opts.completeness ?? UNPROVEN,
    holder,
    foreign_consent: ordered
      .filter((r) => r.tenant !== holder && consentRole(r))
      .map((r) => ({ ...step(r), tenant: r.tenant, purposes: r.lifecycle.purposes })),
    read: ordered.length,
    left_out: leftOut,
    purposes: purposeReports(ordered, own, holder),
    unscoped_grants: own
      .filter((r) => consentRole(r) === "grant" && r.lifecycle.purposes.length === 0)
      .map(step),
    processing: found.processing,
    refusals: found.refusals,
    violations: found.violations,
    verifications: found.verifications,
    unverified: found.unverified,
    acknowledgements: found.acknowledgements,
    erasures: erasuresOf(ordered),
    breaches: breachStates(ordered, nowMs, deadlines),
    judged_at: new Date(nowMs).toISOString(),
    breach_deadlines: deadlines,
    custody: custodyHops(ordered, keys),
    timeline: ordered.map(step),
  };
}

/** Records given without an index lookup's proof: nothing says none was left out. */
const UNPROVEN: TrailCompleteness = {
  complete: false,
  detail: "not proven complete: no index lookup came with these records",
  logs: [],
};

/** What `verifyBundle` said of each record, in the bundle's order (`BundleReport.records`). */
interface CheckedRecord {
  identity: string;
  ok: boolean;
  receipts: Array<{ ok: boolean; detail: string }>;
}

/** What `verifyBundle` said of the bundle's completeness (`BundleReport.completeness`). */
interface CheckedCompleteness {
  complete: boolean;
  detail: string;
  logs: Array<{ log: string; log_size: number }>;
}

/**
 * The trail the report read: the bundle's completeness, unless a record of it was left out of the
 * report (its receipts did not verify), which a complete trail may not be read without.
 */
function trailOf(c: CheckedCompleteness | undefined, leftOut: number): TrailCompleteness {
  if (!c) return UNPROVEN;
  const logs = c.logs.map((l) => ({ log: l.log, log_size: l.log_size }));
  if (c.complete && leftOut > 0)
    return {
      complete: false,
      detail: `not proven complete: the index lookup proved the bundle complete, but ${leftOut} of its record(s) did not verify and were not read`,
      logs,
    };
  return { complete: c.complete, detail: c.detail, logs };
}

/**
 * The report of a verified evidence bundle: made of the records whose receipts verified (and
 * that are of the bundle's subject), the others listed as left out. Verify first (`verifyBundle`,
 * with your trust roots): the report is only as good as the verdict it is read with.
 *
 * @example
 * ```ts
 * const report = verifyBundle(bundle, roots);
 * if (report.code === "verified") console.log(bundleConsentReport(bundle, report));
 * ```
 */
export function bundleConsentReport(
  bundle: { subject: { id: string; holder?: string }; records: Array<{ record: Record<string, unknown> }> },
  checked: { records: CheckedRecord[]; completeness?: CheckedCompleteness },
  keys: CustodyKeys = {},
  opts: ReportOptions = {},
): ConsentReport {
  const proven: Array<Record<string, unknown>> = [];
  const leftOut: Array<{ identity: string; reason: string }> = [];
  bundle.records.forEach(({ record }, i) => {
    const c = checked.records[i];
    if (c?.ok) proven.push(record);
    else
      leftOut.push({
        identity: text(record.identity),
        reason: c
          ? (c.receipts.find((r) => !r.ok)?.detail ??
            (c.receipts.length ? "not of the bundle's subject" : "no receipt"))
          : "not checked",
      });
  });
  return consentReport(bundle.subject.id, proven, leftOut, keys, {
    completeness: trailOf(checked.completeness, leftOut.length),
    ...opts,
    holder: opts.holder ?? (typeof bundle.subject.holder === "string" ? bundle.subject.holder : undefined),
  });
}
