import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { consentCommand } from "../../../src/cli/consent.js";
import type { ConsentAnswer } from "../../../src/lookup/evidence/consent-build.js";
import { grantAccess } from "../../helpers/access-policy.js";
import { runCli } from "../../helpers/cli-output.js";
import { forSuite, twoTenancies } from "../../helpers/service.js";
import { exportedBundle } from "../../helpers/vcon-bundle.js";
import { newAsset, untilSealed, vconEvent } from "../../helpers/vcon-event.js";

const suite = forSuite(() => twoTenancies());
const SELF = "/archivist/iam/v1/subjects/00000000-0000-0000-0000-000000000000:export";

async function importSelf(from: string, into: string): Promise<string> {
  const { subject_string } = (await (await suite.s.api(SELF, { token: from })).json()) as {
    subject_string: string;
  };
  const res = await suite.s.api("/archivist/iam/v1/subjects:import", {
    method: "POST",
    token: into,
    json: { subject_string },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { identity: string }).identity;
}

function lifecycle(vcon: string, op: string, purpose: string) {
  const e = vconEvent(vcon, op, "2026-01-01");
  return { ...e, event_attributes: { ...e.event_attributes, consent_purpose: purpose } };
}

async function post(token: string, asset: string, body: unknown): Promise<string> {
  const res = await suite.s.api(`/archivist/v2/${asset}/events`, { method: "POST", token, json: body });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { identity: string }).identity;
}

describe("a vCon's consent is decided by the tenancy that holds it", () => {
  it("another tenancy's grant, shared with the holder, decides nothing: the route, the CLI and the bundle's report", async () => {
    const { s, ta, tb } = suite;
    const vcon = crypto.randomUUID();
    // B shares its vCon records with A (OBAC: both import the other's Self, B grants A's subject).
    const aInB = await importSelf(ta, tb);
    await importSelf(tb, ta);
    const bAsset = await newAsset(s, tb, "shared-vcon");
    await grantAccess(s, tb, "share vCons with A", "attributes.arc_display_type=shared-vcon", {
      subjects: [aInB],
      asset_attributes_read: ["*"],
      event_arc_display_type_read: ["*"],
    });
    const aAsset = await newAsset(s, ta);
    await post(ta, aAsset, lifecycle(vcon, "vcon_consent_accepted", "analysis"));
    const revoke = await post(ta, aAsset, lifecycle(vcon, "vcon_consent_revoked", "analysis"));
    const foreignGrant = await post(tb, bAsset, lifecycle(vcon, "vcon_consent_accepted", "analysis"));
    await post(ta, aAsset, lifecycle(vcon, "vcon_inference_performed", "analysis"));
    await untilSealed(s, ta, aAsset);
    await untilSealed(s, tb, bAsset);
    // A reads B's grant (the share works), and it decides nothing.
    const answer = (await (
      await s.api(`/archivist/v1/consent/vcons/${vcon}?purpose=analysis`, { token: ta })
    ).json()) as ConsentAnswer;
    expect(answer.consents[0]).toMatchObject({ state: "revoked", decided_by: revoke });
    expect(answer.foreign.map((f) => f.identity)).toEqual([foreignGrant]);
    expect(answer.records.map((r) => r.record.identity)).not.toContain(foreignGrant);
    // B's own view: its own grant decides for B.
    const forB = (await (
      await s.api(`/archivist/v1/consent/vcons/${vcon}?purpose=analysis`, { token: tb })
    ).json()) as ConsentAnswer;
    expect(forB.consents[0]).toMatchObject({ state: "granted", decided_by: foreignGrant });
    // A's bundle holds B's shared grant and still finds the violation.
    const bundle = await exportedBundle(s, ta, vcon);
    const report = await bundle.report();
    // The exit status is the bundle's verdict (verified); the report keeps the violation.
    expect(report.code, report.out).toBe(0);
    expect(report.out).toContain("purpose analysis: revoked");
    expect(report.out).toContain("1 VIOLATION(S) of consent");
    expect(report.out).toContain(`consent record of another tenancy`);
  });

  it("a foreign tenancy's genuine grant added to the holder's bundle, even naming the foreign tenancy as holder, leaves the violation", async () => {
    const { s, ta, tb } = suite;
    const vcon = crypto.randomUUID();
    const aAsset = await newAsset(s, ta);
    await post(ta, aAsset, lifecycle(vcon, "vcon_consent_accepted", "analysis"));
    await post(ta, aAsset, lifecycle(vcon, "vcon_consent_revoked", "analysis"));
    const bAsset = await newAsset(s, tb);
    await post(tb, bAsset, lifecycle(vcon, "vcon_consent_accepted", "analysis"));
    await post(ta, aAsset, lifecycle(vcon, "vcon_inference_performed", "analysis"));
    await untilSealed(s, ta, aAsset);
    await untilSealed(s, tb, bAsset);
    const mine = await exportedBundle(s, ta, vcon);
    const theirs = await exportedBundle(s, tb, vcon);
    type Bundle = { subject: { holder?: string }; records: unknown[]; logs: unknown[] };
    const a = JSON.parse(readFileSync(mine.out, "utf8")) as Bundle;
    const b = JSON.parse(readFileSync(theirs.out, "utf8")) as Bundle;
    for (const holder of [a.subject.holder, b.subject.holder]) {
      const merged = {
        ...a,
        subject: { ...a.subject, holder },
        records: [...a.records, ...b.records],
        logs: [...a.logs, ...b.logs],
      };
      writeFileSync(mine.out, JSON.stringify(merged));
      const report = await mine.report();
      expect(report.out).toContain("1 VIOLATION(S) of consent");
      expect(report.out).toContain("after consent was revoked");
    }
  });

  it("`archivist consent` derives the state itself: a proxy's rewritten state is TAMPERED", async () => {
    const { s, ta } = suite;
    const vcon = crypto.randomUUID();
    const asset = await newAsset(s, ta);
    await post(ta, asset, lifecycle(vcon, "vcon_consent_accepted", "analysis"));
    await post(ta, asset, lifecycle(vcon, "vcon_consent_revoked", "analysis"));
    await untilSealed(s, ta, asset);
    const dir = mkdtempSync(join(tmpdir(), "consent-"));
    const keys = join(dir, "keys.cbor");
    writeFileSync(keys, new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()));
    // A proxy in front of the service that rewrites only the stated state.
    const { createServer } = await import("node:http");
    const proxy = createServer(async (req, res) => {
      const upstream = await fetch(`${s.url}${req.url}`, {
        headers: { authorization: String(req.headers.authorization ?? "") },
      });
      let body = Buffer.from(await upstream.arrayBuffer());
      if (req.url?.startsWith("/archivist/v1/consent/vcons/")) {
        const answer = JSON.parse(body.toString("utf8")) as ConsentAnswer;
        for (const c of answer.consents) c.state = "granted";
        body = Buffer.from(JSON.stringify(answer));
      }
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "" });
      res.end(body);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    try {
      const address = proxy.address() as { port: number };
      const run = await runCli(
        (a) => consentCommand.run(a),
        [`vcon://${vcon}`, "--url", `http://127.0.0.1:${address.port}`, "--token", ta, "--keys", keys],
      );
      expect(run.out).toContain("purpose analysis: revoked");
      expect(run.out).toContain("TAMPERED");
      expect(run.code, run.out).not.toBe(0);
      const direct = await runCli(
        (a) => consentCommand.run(a),
        [`vcon://${vcon}`, "--url", s.url, "--token", ta, "--keys", keys],
      );
      expect(direct.code, direct.out).toBe(0);
    } finally {
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });
});
