import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { consentCommand } from "../../../src/cli/consent.js";
import type { ConsentAnswer } from "../../../src/lookup/evidence/consent-build.js";
import { keysFromKeySet, verifyRecordReceipt } from "../../../src/verify/index.js";
import { runCli } from "../../helpers/cli-output.js";
import { createAsset } from "../../helpers/records.js";
import { plainApplication, serviceForSuite } from "../../helpers/service.js";
import { exportedBundle } from "../../helpers/vcon-bundle.js";
import { untilSealed, vconEvent } from "../../helpers/vcon-event.js";

const suite = serviceForSuite();
const vcon = crypto.randomUUID();

/** A consent (or any) lifecycle event of the vCon, with its purposes. */
function lifecycle(op: string, purpose?: string) {
  const e = vconEvent(vcon, op, "2026-01-01");
  return purpose === undefined
    ? e
    : { ...e, event_attributes: { ...e.event_attributes, consent_purpose: purpose } };
}

async function trail(): Promise<Record<string, string>> {
  const { s, token } = suite;
  const asset = await createAsset(s, token, { arc_display_type: "vcon" });
  const ids: Record<string, string> = {};
  for (const [name, op, purpose] of [
    ["grant", "vcon_consent_accepted", "ai,analysis"],
    ["review", "vcon_consent_reviewed", "ai"],
    ["revoke", "vcon_consent_revoked", "ai"],
    ["inference", "vcon_inference_performed", "analysis"],
  ] as const) {
    const res = await s.api(`/archivist/v2/${asset.identity}/events`, {
      method: "POST",
      token,
      json: lifecycle(op, purpose),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    ids[name] = ((await res.json()) as { identity: string }).identity;
  }
  await untilSealed(s, token, asset.identity);
  return ids;
}

const consentOf = (token: string, query = "") =>
  suite.s.api(`/archivist/v1/consent/vcons/${vcon}${query}`, { token });

describe("a vCon's consent, derived from the log", () => {
  it("answers per purpose with the records that decided it, each with a receipt that verifies", async () => {
    const ids = await trail();
    const res = await consentOf(suite.token);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as ConsentAnswer;
    expect(answer.vcon).toBe(`vcon://${vcon}`);
    expect(answer.consents).toEqual([
      {
        purpose: "ai",
        state: "revoked",
        decided_by: ids.revoke,
        records: [
          { identity: ids.grant, role: "grant" },
          { identity: ids.review, role: "review" },
          { identity: ids.revoke, role: "revocation" },
        ],
      },
      {
        purpose: "analysis",
        state: "granted",
        decided_by: ids.grant,
        records: [{ identity: ids.grant, role: "grant" }],
      },
    ]);
    const keys = keysFromKeySet(
      new Uint8Array(await (await suite.s.api("/.well-known/scitt-keys")).arrayBuffer()),
    );
    expect(answer.records.map((r) => [r.record.identity, r.role])).toEqual([
      [ids.grant, "grant"],
      [ids.review, "review"],
      [ids.revoke, "revocation"],
    ]);
    for (const r of answer.records)
      expect(
        verifyRecordReceipt(r.record, new Uint8Array(Buffer.from(r.receipt ?? "", "base64")), keys),
      ).toMatchObject({
        ok: true,
      });
    // One purpose; one never asked.
    const one = (await (await consentOf(suite.token, "?purpose=analysis")).json()) as ConsentAnswer;
    expect(one.consents.map((c) => [c.purpose, c.state])).toEqual([["analysis", "granted"]]);
    expect(one.records.map((r) => r.record.identity)).toEqual([ids.grant]);
    const never = (await (await consentOf(suite.token, "?purpose=sharing")).json()) as ConsentAnswer;
    expect(never).toMatchObject({
      consents: [{ purpose: "sharing", state: "never_asked", records: [] }],
      records: [],
    });
  });

  it("says no more than the caller may read: another tenancy, or an application without a policy, finds nothing", async () => {
    const other = await consentOf(await suite.s.token(suite.s.b));
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({
      code: 5,
      message: expect.stringContaining("no records you may read"),
    });
    const plain = await plainApplication(suite.s, suite.token);
    expect((await consentOf(plain.token)).status).toBe(404);
    expect((await suite.s.api(`/archivist/v1/consent/vcons/${vcon}`)).status).toBe(401);
  });

  it("refuses a malformed purpose or vCon id with a clear 400/404, never a 500", async () => {
    const bad = await consentOf(suite.token, "?purpose=a%2Cb");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ message: expect.stringContaining("purpose") });
    expect((await suite.s.api("/archivist/v1/consent/vcons/not-a-uuid", { token: suite.token })).status).toBe(
      404,
    );
  });

  it("is in the API's OpenAPI document", async () => {
    const doc = (await (await suite.s.api("/docs/openapi.json")).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toContain("/archivist/v1/consent/vcons/{uuid}");
  });

  it("`archivist consent` checks every consent record's receipt with the keys you pin", async () => {
    const dir = mkdtempSync(join(tmpdir(), "consent-"));
    const keys = join(dir, "keys.cbor");
    writeFileSync(keys, new Uint8Array(await (await suite.s.api("/.well-known/scitt-keys")).arrayBuffer()));
    const run = (args: string[]) => runCli((a) => consentCommand.run(a), args);
    const base = ["--url", suite.s.url, "--token", suite.token];
    const pinned = await run([`vcon://${vcon}`, "--purpose", "ai", ...base, "--keys", keys]);
    expect(pinned.code, pinned.out).toBe(0);
    expect(pinned.out).toMatch(/purpose ai: revoked, decided by assets\/.*\n {4}grant .*receipt verifies/);
    expect(pinned.out).toContain("VERIFIED");
    const unpinned = await run([`vcon://${vcon}`, ...base]);
    expect(unpinned.code).toBe(2);
    expect(unpinned.out).toContain("purpose analysis: granted");
    const json = await run([`vcon://${vcon}`, ...base, "--keys", keys, "--json"]);
    expect(JSON.parse(json.out)).toMatchObject({
      verdict: { code: "verified" },
      consents: [{ purpose: "ai" }, { purpose: "analysis" }],
    });
    const missing = await run([`vcon://${crypto.randomUUID()}`, ...base]);
    expect(missing.code).toBe(4);
    expect(missing.out).toMatch(/^FAILED .*404/);
  });

  it("the vCon's exported bundle, verified offline with --report, shows each purpose and judges every processing", async () => {
    const bundle = await exportedBundle(suite.s, suite.token, vcon);
    const text = await bundle.report();
    expect(text.code, text.out).toBe(0);
    expect(text.out).toContain("purpose ai: revoked");
    expect(text.out).toContain("purpose analysis: granted");
    // The inference for analysis came after its grant: within consent.
    expect(text.out).toMatch(/processing .* AI inference performed for analysis .*: within consent/);
    expect(text.out).toContain("no violation of consent among 1 processing event(s)");
    const json = await bundle.report("--json");
    expect(JSON.parse(json.out)).toMatchObject({
      code: "verified",
      consent_report: { subject: `vcon://${vcon}`, read: 4, violations: [], left_out: [] },
    });
  });
});
