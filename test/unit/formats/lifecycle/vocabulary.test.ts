import { describe, expect, it } from "vitest";
import {
  LIFECYCLE_OPERATIONS,
  lifecycleLabel,
  lifecycleOperation,
  purposesOf,
  recordLifecycle,
} from "../../../../src/formats/lifecycle/vocabulary.js";

// Every operation the lifecycle draft's editor's copy names in its "vCon Lifecycle Events" list.
const DRAFT = [
  "vcon_created",
  "vcon_enhanced",
  "vcon_sent",
  "vcon_received",
  "vcon_consent_accepted",
  "vcon_consent_revoked",
  "vcon_party_redacted",
  "vcon_deleted",
  "vcon_expired",
  "vcon_rcvr_purged",
  "vcon_breach_detected",
  "vcon_breach_investigated",
  "vcon_subject_notified",
  "vcon_regulator_notified",
  "vcon_remediated",
  "vcon_training_prepared",
  "vcon_model_training_initiated",
  "vcon_model_training_completed",
  "vcon_model_validated",
  "vcon_model_deployed",
  "vcon_inference_performed",
];

describe("the lifecycle vocabulary", () => {
  it("holds every operation of the draft, attributed to it, and says which are ours", () => {
    const names = LIFECYCLE_OPERATIONS.map((o) => o.name);
    expect(names.filter((n) => DRAFT.includes(n))).toEqual(DRAFT);
    for (const o of LIFECYCLE_OPERATIONS)
      expect(o.source, o.name).toBe(DRAFT.includes(o.name) ? "draft-howe-vcon-lifecycle" : "vcon-archivist");
    expect(new Set(names).size).toBe(names.length);
  });

  it("records consent per purpose, and marks the processing that needs it", () => {
    const perPurpose = LIFECYCLE_OPERATIONS.filter((o) => o.perPurpose).map((o) => o.name);
    expect(perPurpose).toEqual(
      expect.arrayContaining(["vcon_consent_accepted", "vcon_consent_reviewed", "vcon_consent_revoked"]),
    );
    const processing = LIFECYCLE_OPERATIONS.filter((o) => o.processing).map((o) => o.name);
    expect(processing).toEqual([
      "vcon_training_prepared",
      "vcon_model_training_initiated",
      "vcon_inference_performed",
    ]);
  });

  it("reads a purpose after a dot on a per-purpose operation only; anything else is unknown, not refused", () => {
    expect(lifecycleOperation("vcon_consent_revoked.ai_training")).toMatchObject({
      known: true,
      operation: { name: "vcon_consent_revoked" },
      purpose: "ai_training",
    });
    expect(lifecycleOperation("vcon_created.x")).toEqual({ known: false, name: "vcon_created.x" });
    expect(lifecycleOperation("vcon_transcribed")).toEqual({ known: false, name: "vcon_transcribed" });
    expect(lifecycleOperation("constructor")).toEqual({ known: false, name: "constructor" });
  });

  it("reads a record's operation and purposes the way each producer writes them", () => {
    // The template: vcon_operation and consent_purpose (a list, or comma-separated).
    const ours = recordLifecycle({
      identity: "assets/a/events/e",
      event_attributes: { vcon_operation: "vcon_consent_accepted", consent_purpose: "training, analysis" },
    });
    expect(ours).toMatchObject({ name: "vcon_consent_accepted", purposes: ["training", "analysis"] });
    expect(lifecycleLabel(ours)).toBe("consent granted for training, analysis (consent)");
    // vcon-server's datatrails link: arc_event_type, purpose in the operation's name.
    const link = recordLifecycle({
      identity: "events/e",
      attributes: { arc_event_type: "vcon_consent_revoked.training" },
    });
    expect(link).toMatchObject({ purposes: ["training"], meaning: { known: true } });
    // Unknown operations are shown as such.
    const other = recordLifecycle({
      identity: "assets/a/events/e",
      event_attributes: { arc_display_type: "x" },
    });
    expect(lifecycleLabel(other)).toBe("unknown lifecycle operation (x)");
    expect(lifecycleLabel(recordLifecycle({ event_attributes: {} }))).toBe("no lifecycle operation");
  });

  it("takes purposes from a string, a comma list or a list, dropping blanks and repeats", () => {
    expect(purposesOf(" a, b,,a ")).toEqual(["a", "b"]);
    expect(purposesOf(["a", 3, "b"])).toEqual(["a", "b"]);
    expect(purposesOf({ a: 1 })).toEqual([]);
  });
});
