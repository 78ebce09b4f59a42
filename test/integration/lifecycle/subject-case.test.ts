import { describe, expect, it } from "vitest";
import type { ConsentAnswer } from "../../../src/lookup/evidence/consent-build.js";
import { serviceForSuite } from "../../helpers/service.js";
import { exportedBundle } from "../../helpers/vcon-bundle.js";
import { newAsset, untilSealed, vconEvent } from "../../helpers/vcon-event.js";

const suite = serviceForSuite();

/** A lifecycle event of the vCon whose subject is spelled `subject`, for `purpose`. */
function spelled(
  vcon: string,
  subject: string,
  op: string,
  purpose: string,
  extra: Record<string, unknown> = {},
) {
  const e = vconEvent(vcon, op, "2026-01-01");
  return { ...e, event_attributes: { ...e.event_attributes, subject, consent_purpose: purpose, ...extra } };
}

async function post(asset: string, body: unknown): Promise<Record<string, unknown> & { identity: string }> {
  const res = await suite.s.api(`/archivist/v2/${asset}/events`, {
    method: "POST",
    token: suite.token,
    json: body,
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Record<string, unknown> & { identity: string };
}

describe("a vCon subject in upper case names the same vCon", () => {
  it("is written in lower case, so a revocation spelled in upper case revokes, is in the bundle and the report", async () => {
    const vcon = crypto.randomUUID();
    const upper = `vcon://${vcon.toUpperCase()}`;
    const asset = await newAsset(suite.s, suite.token);
    await post(asset, spelled(vcon, `vcon://${vcon}`, "vcon_consent_accepted", "analysis"));
    const revoked = await post(asset, spelled(vcon, upper, "vcon_consent_revoked", "analysis"));
    expect((revoked.event_attributes as Record<string, unknown>).subject).toBe(`vcon://${vcon}`);
    await post(asset, spelled(vcon, `VCON://${vcon.toUpperCase()}`, "vcon_inference_performed", "analysis"));
    await untilSealed(suite.s, suite.token, asset);
    const answer = (await (
      await suite.s.api(`/archivist/v1/consent/vcons/${vcon}?purpose=analysis`, { token: suite.token })
    ).json()) as ConsentAnswer;
    expect(answer.consents[0]).toMatchObject({ state: "revoked", decided_by: revoked.identity });
    const report = await (await exportedBundle(suite.s, suite.token, vcon)).report();
    expect(report.out).toContain("purpose analysis: revoked");
    expect(report.out).toContain("1 VIOLATION(S) of consent");
  });

  it("a record stored with its subject in upper case (before subjects were made canonical) is found by the lower-case name: listed, erased", async () => {
    const vcon = crypto.randomUUID();
    const asset = await newAsset(suite.s, suite.token);
    const put = await suite.s.api("/archivist/v1/erasure/policy", {
      method: "PUT",
      token: suite.token,
      json: { attributes: ["party_tel"] },
    });
    expect(put.status).toBe(200);
    const made = await post(
      asset,
      spelled(vcon, `vcon://${vcon}`, "vcon_created", "analysis", { party_tel: "+1 555 0100" }),
    );
    // As an older release stored it: the spelling the writer sent.
    await suite.s.service.ctx.db.query(
      "update asset_events set event_attributes = jsonb_set(event_attributes, '{subject}', to_jsonb($1::text)) where id = $2",
      [`vcon://${vcon.toUpperCase()}`, made.identity.split("/")[3]],
    );
    const listed = (await (
      await suite.s.api(
        `/archivist/v2/assets/-/events?event_attributes.subject=${encodeURIComponent(`vcon://${vcon}`)}`,
        { token: suite.token },
      )
    ).json()) as { events: Array<{ identity: string }> };
    expect(listed.events.map((e) => e.identity)).toEqual([made.identity]);
    const erased = await suite.s.api("/archivist/v1/erasures", {
      method: "POST",
      token: suite.token,
      json: { vcon: `vcon://${vcon}`, basis: "GDPR Art. 17" },
    });
    expect(erased.status, await erased.clone().text()).toBe(200);
    expect(((await erased.json()) as { erased: Array<{ record: string }> }).erased).toEqual([
      { record: made.identity, attribute: "event_attributes.party_tel" },
    ]);
  });
});
