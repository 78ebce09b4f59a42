import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConserverError } from "../../../plugins/conserver/errors.js";
import { normaliseOperation } from "../../../plugins/conserver/operation.js";
import { buildVconEvent, type TemplateConfig } from "../../../plugins/conserver/template.js";
import { hashVcon, parseVcon } from "../../../plugins/conserver/vcon.js";
import { REQUIRED_TEMPLATE } from "../../../src/core/scitt/statement.js";
import { errorCode } from "../../helpers/error-code.js";
import { fixturePath } from "../../helpers/fixtures.js";

const code = (f: () => unknown) => errorCode(ConserverError, f);

const fixture = (name: string) => parseVcon(new Uint8Array(readFileSync(fixturePath(`vcon/${name}`))));
const NOW = new Date("2026-11-22T10:00:00.000Z");
const cfg: TemplateConfig = {
  link: "archivist",
  linkName: "arch_created",
  hashMode: "python-json",
  now: () => NOW,
};

// The statement's required attributes, and the one the template lists that a statement does without.
const REQUIRED = [...REQUIRED_TEMPLATE, "scitt_draft_version"];

describe("template 0.3.0 event", () => {
  it("carries every required attribute and the link's own", () => {
    const doc = fixture("vcon-js-interop-inline-recording.vcon.json");
    const body = buildVconEvent(doc, "created", cfg);
    expect(body.operation).toBe("Record");
    expect(body.behaviour).toBe("RecordEvidence");
    for (const k of REQUIRED) expect(body.event_attributes[k], k).toBeTruthy();
    expect(body.event_attributes).toMatchObject({
      arc_display_type: "vcon_created",
      vcon_operation: "vcon_created",
      conserver_link: "archivist",
      conserver_link_name: "arch_created",
      conserver_link_version: "0.3.0",
      payload: hashVcon(doc, "python-json"),
      payload_hash_alg: "SHA-256",
      payload_preimage_content_type: "application/vcon+json",
      subject: "vcon://42f69ca7-2a14-4e5e-8814-bc1695f9fe24",
      timestamp_declared: "2025-04-24T14:51:20.369Z",
      vcon_draft_version: "01",
      scitt_draft_version: "10",
    });
    expect(body.timestamp_declared).toBe("2025-04-24T14:51:20.369Z");
  });

  it("declares the current time when the vCon has no time at all (default), or omits or refuses", () => {
    const doc = fixture("ietf-core03-ab_call_ext_rec.vcon.json");
    expect(buildVconEvent(doc, "vcon_created", cfg).event_attributes.timestamp_declared).toBe(
      NOW.toISOString(),
    );
    const omitted = buildVconEvent(doc, "vcon_created", { ...cfg, timestampFallback: "omit" });
    expect(omitted.event_attributes.timestamp_declared).toBeUndefined();
    expect(omitted.timestamp_declared).toBeUndefined();
    expect(code(() => buildVconEvent(doc, "vcon_created", { ...cfg, timestampFallback: "reject" }))).toBe(
      "VCON_NO_TIMESTAMP",
    );
  });

  it("keeps a zoneless stored time as the attribute but not as the event's declared time", () => {
    const doc = parseVcon('{"uuid":"u1","parties":[],"created_at":"2024-05-07T16:33:29.004994"}');
    const body = buildVconEvent(doc, "vcon_created", cfg);
    expect(body.event_attributes.timestamp_declared).toBe("2024-05-07T16:33:29.004994");
    expect(body.timestamp_declared).toBeUndefined();
  });

  it("uses the encrypted form's unprotected uuid", () => {
    const body = buildVconEvent(fixture("ietf-core03-ab_call_ext_rec_encrypted.vcon.json"), "sent", cfg);
    expect(body.event_attributes.subject).toBe("vcon://019f15a6-a752-826f-b9a2-279e0d16bc46");
  });

  it("refuses a vCon without uuid, and a missing operation", () => {
    expect(code(() => buildVconEvent(parseVcon('{"parties":[]}'), "created", cfg))).toBe("VCON_NO_UUID");
    expect(code(() => buildVconEvent(parseVcon('{"uuid":"u","parties":[]}'), "", cfg))).toBe("LINK_OPTIONS");
  });

  it("never lets extra attributes replace a template attribute", () => {
    const doc = parseVcon('{"uuid":"u1","parties":[],"created_at":"2024-01-01T00:00:00Z"}');
    const body = buildVconEvent(doc, "created", { ...cfg, extraAttributes: { subject: "x", partner: "p" } });
    expect(body.event_attributes.subject).toBe("vcon://u1");
    expect(body.event_attributes.partner).toBe("p");
  });
});

describe("operation names", () => {
  it.each([
    ["vcon_created", "vcon_created"],
    ["created", "vcon_created"],
    ["VCON-created", "vcon_created"],
    ["Consent_Revoked", "vcon_consent_revoked"],
    ["  enhanced ", "vcon_enhanced"],
  ])("%s → %s", (op, want) => {
    expect(normaliseOperation(op)).toBe(want);
  });

  it.each([[""], ["vcon_"], [undefined], [3], ["bad name"]])("refuses %j", (op) => {
    expect(code(() => normaliseOperation(op))).toBe("LINK_OPTIONS");
  });

  it("copies the parties' tel, name and mailto when asked (personal data, for an erasure policy), never over a template attribute", () => {
    const doc = fixture("ietf-core03-ab_call_ext_rec.vcon.json");
    const attrs = buildVconEvent(doc, "created", { ...cfg, partyAttributes: true }).event_attributes;
    const parties = (doc.unsigned?.parties ?? []) as Array<Record<string, string>>;
    expect(parties.length).toBe(2);
    for (const [i, p] of parties.entries()) {
      expect(attrs[`party_${i}_tel`]).toBe(p.tel);
      expect(attrs[`party_${i}_name`]).toBe(p.name);
    }
    expect(buildVconEvent(doc, "created", cfg).event_attributes.party_0_tel).toBeUndefined();
    // An encrypted vCon's parties are hidden: nothing to copy.
    const sealed = buildVconEvent(fixture("ietf-core03-ab_call_ext_rec_encrypted.vcon.json"), "created", {
      ...cfg,
      partyAttributes: true,
    }).event_attributes;
    expect(Object.keys(sealed).filter((k) => k.startsWith("party_"))).toEqual([]);
  });
});
