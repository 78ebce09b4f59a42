import { describe, expect, it } from "vitest";
import { applicationSubject, grantAccess } from "../../helpers/access-policy.js";
import { createAsset } from "../../helpers/records.js";
import { plainApplication, serviceForSuite } from "../../helpers/service.js";
import { exportedBundle } from "../../helpers/vcon-bundle.js";
import { untilSealed, vconEvent } from "../../helpers/vcon-event.js";

// Consent verification recorded before training (docs/vcon-lifecycle.md, §2): a processor asks
// the service to verify a purpose's consent before an operation; when granted, the service records
// `vcon_consent_verified` before answering, and the report says which training and inference had
// one before them.
const suite = serviceForSuite();
const vcon = crypto.randomUUID();

const verify = (token: string, body: unknown, uuid = vcon) =>
  suite.s.api(`/archivist/v1/consent/vcons/${uuid}/verifications`, { method: "POST", token, json: body });

async function post(asset: string, op: string, purpose: string): Promise<string> {
  const e = vconEvent(vcon, op, "2026-01-01");
  const res = await suite.s.api(`/archivist/v2/${asset}/events`, {
    method: "POST",
    token: suite.token,
    json: { ...e, event_attributes: { ...e.event_attributes, consent_purpose: purpose } },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { identity: string }).identity;
}

describe("consent verification recorded before processing", () => {
  it("records the verification when granted, before the training it lets through; the report flags training without one", async () => {
    const { s, token } = suite;
    const asset = await createAsset(s, token, { arc_display_type: "vcon" });
    const grant = await post(asset.identity, "vcon_consent_accepted", "training");
    const aiGrant = await post(asset.identity, "vcon_consent_accepted", "ai");
    await post(asset.identity, "vcon_consent_revoked", "ai");

    const res = await verify(token, { purpose: "training", operation: "vcon_model_training_initiated" });
    expect(res.status, await res.clone().text()).toBe(200);
    const answer = (await res.json()) as { verification: string; state: string; decided_by: string };
    expect(answer).toMatchObject({
      vcon: `vcon://${vcon}`,
      purpose: "training",
      state: "granted",
      decided_by: grant,
    });
    expect(answer.verification).toMatch(new RegExp(`^${asset.identity}/events/`));
    const record = (await (await s.api(`/archivist/v2/${answer.verification}`, { token })).json()) as {
      event_attributes: Record<string, unknown>;
    };
    expect(record.event_attributes).toMatchObject({
      vcon_operation: "vcon_consent_verified.training",
      subject: `vcon://${vcon}`,
      consent_purpose: "training",
      verified_operation: "vcon_model_training_initiated",
      verified_grant: grant,
    });
    const training = await post(asset.identity, "vcon_model_training_initiated", "training");
    // Prepared without asking: recorded, and flagged.
    const prepared = await post(asset.identity, "vcon_training_prepared", "training");

    // Revoked, or never asked: nothing is recorded, the state says why.
    for (const [purpose, state] of [
      ["ai", "revoked"],
      ["sharing", "never_asked"],
    ] as const) {
      const no = await verify(token, { purpose, operation: "vcon_inference_performed" });
      expect(no.status).toBe(200);
      expect(await no.json()).toMatchObject({ purpose, state, verification: null });
    }
    expect(aiGrant).toMatch(/^assets\//);

    await untilSealed(s, token, asset.identity);
    const bundle = await exportedBundle(s, token, vcon);
    const text = await bundle.report();
    expect(text.code, text.out).toBe(0);
    expect(text.out).toContain(
      `${training}: within consent; consent verified for training by ${answer.verification}`,
    );
    expect(text.out).toContain(
      `${prepared}: within consent; UNVERIFIED: no consent verification recorded before it for training`,
    );
    expect(text.out).toMatch(
      new RegExp(
        `verified .* consent for training before vcon_model_training_initiated under grant ${grant}`,
      ),
    );
    expect(text.out).toContain(
      "1 training or inference purpose(s) processed WITHOUT a recorded consent verification",
    );
    const json = await bundle.report("--json");
    expect(JSON.parse(json.out).consent_report).toMatchObject({
      violations: [],
      unverified: [{ identity: prepared, purpose: "training" }],
      verifications: [{ identity: answer.verification, grant }],
    });
  });

  it("records nothing for an application whose policy cannot read the tenancy's revocation: the whole view decides", async () => {
    const { s, token } = suite;
    const asset = await createAsset(s, token, { arc_display_type: "vcon-restricted" });
    await post(asset.identity, "vcon_consent_accepted", "restricted");
    await post(asset.identity, "vcon_consent_revoked", "restricted");
    const app = await plainApplication(s, token, { display_name: "grant reader" });
    // It reads grants and writes verifications, and does not read revocations.
    await grantAccess(s, token, "grants only", "attributes.arc_display_type=vcon-restricted", {
      ...applicationSubject(app.clientId),
      asset_attributes_read: ["*"],
      behaviours: ["RecordEvidence"],
      event_arc_display_type_read: ["vcon_consent_accepted", "vcon_consent_verified"],
      event_arc_display_type_write: ["vcon_consent_verified"],
    });
    const seen = (await (
      await s.api(`/archivist/v1/consent/vcons/${vcon}?purpose=restricted`, { token: app.token })
    ).json()) as {
      consents: Array<{ state: string }>;
    };
    expect(seen.consents[0]?.state).toBe("granted");
    const res = await verify(app.token, { purpose: "restricted", operation: "vcon_inference_performed" });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ purpose: "restricted", state: "revoked", verification: null });
    const events = (await (await s.api(`/archivist/v2/${asset.identity}/events`, { token })).json()) as {
      events: Array<{ event_attributes: Record<string, unknown> }>;
    };
    expect(events.events.map((e) => e.event_attributes.arc_display_type)).not.toContain(
      "vcon_consent_verified",
    );
  });

  it("says nothing of a vCon the caller may not read, and refuses a malformed request with a 400", async () => {
    const other = await verify(await suite.s.token(suite.s.b), {
      purpose: "training",
      operation: "vcon_model_training_initiated",
    });
    expect(other.status).toBe(404);
    for (const body of [
      { purpose: "a,b", operation: "x" },
      { purpose: "a.b", operation: "x" },
      { purpose: "training" },
      { purpose: "training", operation: "no spaces" },
    ]) {
      const bad = await verify(suite.token, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(await bad.json()).toMatchObject({ code: expect.anything(), message: expect.any(String) });
    }
    expect((await verify("", { purpose: "t", operation: "x" })).status).toBe(401);
  });
});
