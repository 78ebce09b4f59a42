import { describe, expect, it } from "vitest";
import { lifecycleOrder } from "../../../../src/formats/lifecycle/consent.js";
import { consentReport, consentReportText } from "../../../../src/verify/lifecycle/report.js";
import { verificationBefore } from "../../../../src/verify/lifecycle/verification.js";
import { consentRecords } from "./records.js";

const rec = consentRecords();

const verified = (minute: number, purpose: string, operation: string, grant: string) =>
  rec(`vcon_consent_verified.${purpose}`, minute, purpose, {
    verified_operation: operation,
    verified_grant: grant,
  });

describe("consent verification recorded before processing", () => {
  it("finds the verification after the grant in force and before the processing, for its operation", () => {
    const grant = rec("vcon_consent_accepted", 1, "training");
    const v = verified(2, "training", "vcon_model_training_initiated", grant.identity);
    const other = verified(3, "training", "vcon_inference_performed", grant.identity);
    const training = rec("vcon_model_training_initiated", 4, "training");
    const inference = rec("vcon_inference_performed.training", 5);
    const prepared = rec("vcon_training_prepared", 6, "training");
    const ordered = lifecycleOrder([prepared, inference, training, other, v, grant]);
    const at = (r: { identity: string }) => ordered.findIndex((o) => o.identity === r.identity);
    expect(verificationBefore(ordered, "training", at(training))).toBe(v.identity);
    // A verification names the operation it lets through: one for inference is not one for training.
    expect(verificationBefore(ordered, "training", at(inference))).toBe(other.identity);
    expect(verificationBefore(ordered, "training", at(prepared))).toBeUndefined();
    // Before the verification was recorded, it does not count.
    expect(verificationBefore(ordered, "training", at(v))).toBeUndefined();
  });

  it("does not count a verification made under a grant since revoked and granted again", () => {
    const grant = rec("vcon_consent_accepted", 1, "ai");
    const v = verified(2, "ai", "", grant.identity);
    const revoke = rec("vcon_consent_revoked", 3, "ai");
    const regrant = rec("vcon_consent_accepted", 4, "ai");
    const inference = rec("vcon_inference_performed", 5, "ai");
    const v2 = verified(6, "ai", "vcon_inference_performed", regrant.identity);
    const inference2 = rec("vcon_inference_performed", 7, "ai");
    const ordered = lifecycleOrder([grant, v, revoke, regrant, inference, v2, inference2]);
    expect(verificationBefore(ordered, "ai", 4)).toBeUndefined();
    expect(verificationBefore(ordered, "ai", 6)).toBe(v2.identity);
    // After a revocation there is no grant in force, so nothing is verified.
    const revoked = lifecycleOrder([grant, v, revoke, inference]);
    expect(verificationBefore(revoked, "ai", 3)).toBeUndefined();
  });

  it("the report lists the verifications, says which processing each let through, and flags training without one", () => {
    const grant = rec("vcon_consent_accepted", 1, "training");
    const v = verified(2, "training", "vcon_model_training_initiated", grant.identity);
    const training = rec("vcon_model_training_initiated", 3, "training");
    const unchecked = rec("vcon_training_prepared", 4, "training");
    const r = consentReport("vcon://v", [grant, v, training, unchecked]);
    expect(r.violations).toEqual([]);
    expect(r.verifications).toMatchObject([
      {
        identity: v.identity,
        purposes: ["training"],
        verified_operation: "vcon_model_training_initiated",
        grant: grant.identity,
        label: "consent verified before processing for training (consent)",
      },
    ]);
    // A verification is neither processing nor consent: it changes no state.
    expect(r.purposes).toMatchObject([{ purpose: "training", state: "granted", decided_by: grant.identity }]);
    expect(r.processing.map((p) => p.verified)).toEqual([
      [{ purpose: "training", verification: v.identity }],
      [{ purpose: "training" }],
    ]);
    expect(r.unverified).toEqual([
      {
        identity: unchecked.identity,
        operation: "vcon_training_prepared",
        purpose: "training",
        reason: "no consent verification for training recorded before it",
      },
    ]);
    const text = consentReportText(r).join("\n");
    expect(text).toContain(
      `processing 2026-01-01T00:03:00.000Z AI model training initiated for training (AI training and processing) ${training.identity}: within consent; consent verified for training by ${v.identity}`,
    );
    expect(text).toContain(
      `${unchecked.identity}: within consent; UNVERIFIED: no consent verification recorded before it for training`,
    );
    expect(text).toMatch(
      /1 training or inference purpose\(s\) processed WITHOUT a recorded consent verification$/,
    );
  });
});
