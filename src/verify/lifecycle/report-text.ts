import type { ConsentReport } from "./report-model.js";

// The consent report as lines for people (the CLI's text output), one section after another in
// the order a reader checks them: consent, processing, the records about it, custody, breaches.

/** The report as lines for people (the CLI's text output). */
export function consentReportText(r: ConsentReport): string[] {
  return [
    `consent and processing of ${r.subject}: ${r.read} proven record(s); consent decided by the records of ${r.holder || "(no tenancy named)"}`,
    r.completeness.complete
      ? `  made from a complete trail: ${r.completeness.detail}`
      : `  made from a trail ${r.completeness.detail}`,
    ...r.left_out.map((l) => `  left out ${l.identity}: ${l.reason}`),
    ...consentLines(r),
    ...processingLines(r),
    ...recordedLines(r),
    ...r.custody.map(custodyLine),
    ...r.refusals.map(
      (f) =>
        `  refused ${f.at} ${f.refused_operation || "(operation not named)"}: ${f.reason} (${f.identity})`,
    ),
    ...r.breaches.flatMap(breachLines),
    ...summaryLines(r),
  ];
}

/** Each purpose's consent and the records that decided it; grants that grant nothing; others' consent. */
function consentLines(r: ConsentReport): string[] {
  const lines: string[] = [];
  for (const p of r.purposes) {
    lines.push(
      `  purpose ${p.purpose}: ${p.state.replace("_", " ")}${p.decided_by ? ` (decided by ${p.decided_by})` : ""}`,
    );
    for (const [word, steps] of [
      ["granted", p.grants],
      ["reviewed", p.reviews],
      ["revoked", p.revocations],
    ] as const)
      for (const s of steps) lines.push(`    ${word} ${s.at} ${s.identity}`);
  }
  for (const g of r.unscoped_grants) lines.push(`  grant naming no purpose (grants none): ${g.identity}`);
  for (const f of r.foreign_consent)
    lines.push(
      `  consent record of another tenancy (${f.tenant || "not named"}), deciding nothing for ${r.holder}: ${f.label} ${f.at} ${f.identity}`,
    );
  return lines;
}

/** Each processing event: within consent or its violations, and its consent verifications. */
function processingLines(r: ConsentReport): string[] {
  return r.processing.map((p) => {
    const unverified = p.verified.filter((v) => !v.verification).map((v) => v.purpose);
    const verified = p.verified.filter((v) => v.verification).map((v) => `${v.purpose} by ${v.verification}`);
    return `  processing ${p.at} ${p.label} ${p.identity}: ${p.violations.length ? `VIOLATION: ${p.violations.join("; ")}` : "within consent"}${unverified.length ? `; UNVERIFIED: no consent verification recorded before it for ${unverified.join(", ")}` : ""}${verified.length ? `; consent verified for ${verified.join(", ")}` : ""}`;
  });
}

/** The acknowledgements, verifications and erasures recorded. */
function recordedLines(r: ConsentReport): string[] {
  return [
    ...r.acknowledgements.map(
      (a) =>
        `  acknowledged ${a.at} revocation ${a.revocation || "(not named)"} by processor ${a.processor || "(not named)"} (${a.identity})`,
    ),
    ...r.verifications.map(
      (v) =>
        `  verified ${v.at} consent for ${v.purposes.join(", ")} before ${v.verified_operation || "(operation not named)"} under grant ${v.grant || "(not named)"} (${v.identity})`,
    ),
    ...r.erasures.map(
      (e) =>
        `  erased ${e.attribute} of ${e.record}: by ${e.by} at ${e.at} under ${e.basis} (erasure record ${e.erasure_record}, ${e.erasure_proven ? "proven in the log" : "not among the records read"})`,
    ),
  ];
}

function custodyLine(h: ConsentReport["custody"][number]): string {
  const p = h.proof;
  const proof =
    p.state === "none"
      ? "carries no proof of the other party"
      : p.state === "failed"
        ? `the other party's proof FAILED: ${p.reason}`
        : `proven by the other party's ${p.operation} ${p.record} (receipt by ${p.issuer}, ${p.keys === "pinned" ? "under keys you pinned" : `under the keys it carries, ${p.fingerprints.join(", ")}: compare them`})`;
  return `  custody ${h.at} ${h.direction} ${h.direction === "sent" ? "to" : "from"} ${h.peer || "(peer not named)"} (transfer ${h.transfer_id || "not named"}) ${h.identity}: ${proof}`;
}

/** One breach: its stage, each step taken, each deadline judged, and its other findings. */
function breachLines(b: ConsentReport["breaches"][number]): string[] {
  const detected = b.steps.detected;
  const lines = [
    `  breach ${b.breach || "(not named)"}: ${b.stage.replace("_", " ")}${detected ? `, detected ${detected.at} (${detected.identity})` : ""}`,
  ];
  for (const step of ["investigated", "subject_notified", "regulator_notified", "remediated"] as const) {
    const s = b.steps[step];
    if (s) lines.push(`    ${step.replace("_", " ")} ${s.at} (${s.identity})`);
  }
  for (const d of b.deadlines)
    lines.push(`    ${d.state === "missed" ? "MISSED" : d.state === "met" ? "met" : "open"}: ${d.detail}`);
  for (const f of b.findings) if (!f.startsWith("DEADLINE MISSED")) lines.push(`    ${f}`);
  return lines;
}

/** The totals: violations, missed breach deadlines, unverified training or inference. */
function summaryLines(r: ConsentReport): string[] {
  const lines = [
    r.violations.length
      ? `${r.violations.length} VIOLATION(S) of consent among ${r.processing.length} processing event(s)`
      : `no violation of consent among ${r.processing.length} processing event(s)`,
  ];
  const missed = r.breaches.flatMap((b) => b.deadlines.filter((d) => d.state === "missed"));
  if (r.breaches.length)
    lines.push(
      missed.length
        ? `${missed.length} breach notification deadline(s) MISSED (judged at ${r.judged_at})`
        : `no breach notification deadline missed (judged at ${r.judged_at})`,
    );
  if (r.unverified.length)
    lines.push(
      `${r.unverified.length} training or inference purpose(s) processed WITHOUT a recorded consent verification`,
    );
  return lines;
}
