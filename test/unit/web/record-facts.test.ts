import { describe, expect, it } from "vitest";
import { recordFacts } from "../../../src/web/record-facts.js";

const template = {
  arc_display_type: "vcon_create",
  vcon_operation: "vcon_create",
  payload: "ab".repeat(32),
  payload_hash_alg: "SHA-256",
  payload_preimage_content_type: "application/vcon+json",
  subject: "vcon://x",
  timestamp_declared: "2025-03-01T10:00:00Z",
  vcon_draft_version: "01",
};

describe("what a record says, whatever its kind", () => {
  it("reads an asset event: operation, payload, form, declared and accepted times, the accepted principal", () => {
    const f = recordFacts({
      identity: "assets/a/events/e",
      operation: "Record",
      event_attributes: template,
      timestamp_accepted: "2026-11-25T08:00:00Z",
      principal_accepted: { issuer: "i", subject: "app-uuid", display_name: "Auditor app", email: "" },
      principal_declared: { issuer: "", subject: "", display_name: "", email: "" },
      confirmation_status: "CONFIRMED",
      merklelog_entry: { commit: { index: "7" } },
    });
    expect(f).toMatchObject({
      kind: "asset event",
      title: "vcon_create",
      operation: "Record",
      payload: { hash: "ab".repeat(32), algorithm: "SHA-256" },
      form: "application/vcon+json, vCon draft 01",
      subject: "vcon://x",
      declared: "2025-03-01T10:00:00Z",
      accepted: "2026-11-25T08:00:00Z",
      acceptedFrom: "Auditor app (app-uuid)",
      status: "CONFIRMED",
      logIndex: 7,
    });
  });

  it("reads an asset-free event and a registered statement by their own fields", () => {
    const at = Date.parse("2026-11-25T08:00:00Z");
    const free = recordFacts({
      identity: "events/e",
      attributes: template,
      event_type: "",
      created_by: "creator",
      created_at: at,
      merklelog_commit: { index: "9", idtimestamp: "01" },
    });
    expect(free).toMatchObject({
      kind: "asset-free event",
      accepted: "2026-11-25T08:00:00.000Z",
      acceptedFrom: "creator",
      logIndex: 9,
    });
    const registered = recordFacts({
      identity: "events/r",
      attributes: { ...template, scitt_issuer: "https://issuer.example" },
      merklelog_commit: { index: "0", idtimestamp: "" },
    });
    expect(registered).toMatchObject({ kind: "registered statement", logIndex: Number.MAX_SAFE_INTEGER });
  });

  it("leaves out what a record does not say", () => {
    const f = recordFacts({ identity: "assets/a/events/e", operation: "NewAsset", event_attributes: {} });
    expect(f).toMatchObject({ title: "NewAsset", payload: undefined, form: "", subject: "", declared: "" });
  });

  it("names each record's lifecycle operation, and says when the vocabulary does not know it", () => {
    const known = recordFacts({
      identity: "assets/a/events/e",
      event_attributes: { ...template, vcon_operation: "vcon_inference_performed", consent_purpose: "ai" },
    });
    expect(known).toMatchObject({
      lifecycle: "AI inference performed for ai (AI training and processing)",
      lifecycleKnown: true,
    });
    const unknown = recordFacts({ identity: "assets/a/events/e", event_attributes: template });
    expect(unknown).toMatchObject({
      lifecycle: "unknown lifecycle operation (vcon_create)",
      lifecycleKnown: false,
    });
  });
});
