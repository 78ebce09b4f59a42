import { describe, expect, it } from "vitest";
import { consentOf, lifecycleOrder, purposesNamed } from "../../../../src/formats/lifecycle/consent.js";

let n = 0;
/** An asset event as the API returns it, accepted at minute `at`, at log position `index` (or not committed). */
function rec(op: string, at: number, purpose?: string | string[], index?: number) {
  n++;
  return {
    identity: `assets/a/events/${n}`,
    event_attributes: { vcon_operation: op, ...(purpose === undefined ? {} : { consent_purpose: purpose }) },
    timestamp_accepted: new Date(Date.UTC(2026, 0, 1, 0, at)).toISOString(),
    merklelog_entry:
      index === undefined ? { commit: null } : { commit: { index: String(index), idtimestamp: "01" } },
  };
}

describe("consent derived from the records", () => {
  it("reads operation names and purposes without regard to case: a revocation in capitals revokes", () => {
    const grant = rec("vcon_consent_accepted", 1, "analysis", 1);
    const shouted = rec("VCON_CONSENT_REVOKED", 2, "Analysis", 3);
    const dotted = rec("Vcon_Consent_Accepted.AI", 3, undefined, 5);
    const ordered = lifecycleOrder([grant, shouted, dotted]);
    expect(consentOf(ordered, "analysis")).toMatchObject({ state: "revoked", decided_by: shouted.identity });
    expect(consentOf(ordered, "Analysis")).toMatchObject({ purpose: "analysis", state: "revoked" });
    expect(consentOf(ordered, "ai")).toMatchObject({ state: "granted", decided_by: dotted.identity });
    expect(purposesNamed(ordered)).toEqual(["ai", "analysis"]);
  });

  it("is never asked, then granted, then revoked: the last grant or revocation for the purpose decides", () => {
    const grant = rec("vcon_consent_accepted", 1, "training", 1);
    const review = rec("vcon_consent_reviewed", 2, "training", 3);
    const revoke = rec("vcon_consent_revoked", 3, "training", 5);
    const ordered = lifecycleOrder([revoke, review, grant]);
    expect(consentOf(ordered, "training", 0)).toEqual({
      purpose: "training",
      state: "never_asked",
      records: [],
    });
    expect(consentOf(ordered, "training", 2)).toMatchObject({ state: "granted", decided_by: grant.identity });
    expect(consentOf(ordered, "training")).toEqual({
      purpose: "training",
      state: "revoked",
      decided_by: revoke.identity,
      records: [
        { identity: grant.identity, role: "grant" },
        { identity: review.identity, role: "review" },
        { identity: revoke.identity, role: "revocation" },
      ],
    });
  });

  it("keeps purposes apart; a revocation naming none revokes them all, a grant naming none grants none", () => {
    const ordered = lifecycleOrder([
      rec("vcon_consent_accepted", 1, ["qa", "training"], 1),
      rec("vcon_consent_revoked", 2, "qa", 3),
      rec("vcon_consent_accepted", 3, undefined, 4),
    ]);
    expect(consentOf(ordered, "qa").state).toBe("revoked");
    expect(consentOf(ordered, "training").state).toBe("granted");
    expect(consentOf(ordered, "sharing").state).toBe("never_asked");
    const all = lifecycleOrder([
      rec("vcon_consent_accepted", 1, "training", 1),
      rec("vcon_consent_revoked", 2),
    ]);
    expect(consentOf(all, "training").state).toBe("revoked");
    expect(purposesNamed(ordered)).toEqual(["qa", "training"]);
  });

  it("reads the purpose from vcon-server's operation names too", () => {
    const ordered = lifecycleOrder([
      {
        identity: "events/x",
        attributes: { arc_event_type: "vcon_consent_accepted.ai" },
        created_at: Date.UTC(2026, 0, 1),
      },
    ]);
    expect(consentOf(ordered, "ai")).toMatchObject({ state: "granted", decided_by: "events/x" });
  });

  it("orders by acceptance, then log position; records not committed come after those committed at the same time", () => {
    const a = rec("vcon_consent_accepted", 5, "p");
    const b = rec("vcon_consent_revoked", 5, "p", 9);
    const c = rec("vcon_consent_accepted", 4, "p", 20);
    expect(lifecycleOrder([a, b, c]).map((r) => r.identity)).toEqual([c.identity, b.identity, a.identity]);
    // No readable time: last.
    const d = { identity: "x", event_attributes: { vcon_operation: "vcon_consent_revoked" } };
    expect(lifecycleOrder([d, a]).map((r) => r.identity)).toEqual([a.identity, "x"]);
  });
});
