import { describe, expect, it } from "vitest";
import {
  bundleConsentReport,
  consentReport,
  consentReportText,
} from "../../../../src/verify/lifecycle/report.js";
import { consentRecords } from "./records.js";

const rec = consentRecords();

describe("the consent and processing report", () => {
  it("lists each purpose's grants, reviews and revocations, every processing, and flags the violations", () => {
    const grant = rec("vcon_consent_accepted", 1, "ai,analysis");
    const ok = rec("vcon_inference_performed", 2, "ai");
    const review = rec("vcon_consent_reviewed", 3, "ai");
    const revoke = rec("vcon_consent_revoked", 4, "ai");
    const refused = rec("vcon_processing_refused.ai", 5, "ai", {
      refused_operation: "vcon_inference_performed",
      refusal_reason: "consent for ai was revoked",
    });
    const late = rec("vcon_inference_performed", 6, "ai");
    const unasked = rec("vcon_training_prepared", 7, "training");
    const declared = rec("vcon_summarised", 8, "analysis");
    const bare = rec("vcon_inference_performed", 9);
    const created = rec("vcon_created", 0);
    const r = consentReport("vcon://v", [
      late,
      grant,
      ok,
      review,
      revoke,
      refused,
      unasked,
      declared,
      bare,
      created,
    ]);
    expect(r.read).toBe(10);
    expect(r.timeline[0]?.identity).toBe(created.identity);
    expect(r.purposes).toMatchObject([
      {
        purpose: "ai",
        state: "revoked",
        decided_by: revoke.identity,
        grants: [{ identity: grant.identity }],
        reviews: [{ identity: review.identity }],
        revocations: [{ identity: revoke.identity }],
      },
      { purpose: "analysis", state: "granted" },
      { purpose: "training", state: "never_asked", grants: [] },
    ]);
    expect(r.processing.map((p) => [p.identity, p.violations.length])).toEqual([
      [ok.identity, 0],
      [late.identity, 1],
      [unasked.identity, 1],
      [declared.identity, 0],
      [bare.identity, 1],
    ]);
    expect(r.violations).toEqual([
      {
        identity: late.identity,
        operation: "vcon_inference_performed",
        purpose: "ai",
        reason: `processing for ai after consent was revoked (${revoke.identity})`,
      },
      {
        identity: unasked.identity,
        operation: "vcon_training_prepared",
        purpose: "training",
        reason: "processing for training without consent ever granted",
      },
      {
        identity: bare.identity,
        operation: "vcon_inference_performed",
        reason: "processing that names no purpose: no consent can cover it",
      },
    ]);
    expect(r.refusals).toMatchObject([
      { identity: refused.identity, purposes: ["ai"], refused_operation: "vcon_inference_performed" },
    ]);
    // An unknown operation that declares a purpose is processing under it, shown as unknown.
    expect(r.processing[3]).toMatchObject({
      known: false,
      label: "unknown lifecycle operation (vcon_summarised)",
    });
    const text = consentReportText(r).join("\n");
    expect(text).toContain("purpose ai: revoked");
    expect(text).toContain(`VIOLATION: processing for ai after consent was revoked (${revoke.identity})`);
    expect(text).toMatch(
      /3 VIOLATION\(S\) of consent among 5 processing event\(s\)\n3 training or inference purpose\(s\) processed WITHOUT a recorded consent verification$/,
    );
    // The unknown operation that declares a purpose is processing, not training or inference.
    expect(r.unverified.map((u) => [u.identity, u.purpose])).toEqual([
      [ok.identity, "ai"],
      [late.identity, "ai"],
      [unasked.identity, "training"],
    ]);
    expect(r.processing[3]?.verified).toEqual([]);
  });

  it("made from a bundle, reads only the records whose receipts verified, and names the others", () => {
    const grant = rec("vcon_consent_accepted", 1, "ai");
    const revoke = rec("vcon_consent_revoked", 2, "ai");
    const late = rec("vcon_inference_performed", 3, "ai");
    const bundle = {
      subject: { id: "vcon://v" },
      records: [grant, revoke, late].map((record) => ({ record })),
    };
    const checked = {
      records: [
        { identity: grant.identity, ok: true, receipts: [{ ok: true, detail: "" }] },
        {
          identity: revoke.identity,
          ok: false,
          receipts: [{ ok: false, detail: "the receipt's peak is not in the bundled seal 7" }],
        },
        { identity: late.identity, ok: false, receipts: [] },
      ],
    };
    const r = bundleConsentReport(bundle, checked);
    // A revocation that does not verify is not evidence: the purpose reads as still granted.
    expect(r.purposes).toMatchObject([{ purpose: "ai", state: "granted" }]);
    expect(r.processing).toEqual([]);
    expect(r.left_out).toEqual([
      { identity: revoke.identity, reason: "the receipt's peak is not in the bundled seal 7" },
      { identity: late.identity, reason: "no receipt" },
    ]);
  });
});
