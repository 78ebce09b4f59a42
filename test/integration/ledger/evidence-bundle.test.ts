import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Command } from "../../../src/cli/command.js";
import { exportCommand } from "../../../src/cli/export.js";
import { verifyPublicCommand } from "../../../src/cli/verify-public.js";
import type { EvidenceBundle } from "../../../src/formats/bundle/format.js";
import { runCli } from "../../helpers/cli-output.js";
import { until } from "../../helpers/poll.js";
import { createAsset } from "../../helpers/records.js";
import { forSuite, startTestService, type TestService } from "../../helpers/service.js";
import { untilSealed, vconEvent } from "../../helpers/vcon-event.js";

let s: TestService;
let forger: TestService;
let token: string;
let asset: string;
let tenant: string;
const vcon = crypto.randomUUID();
const dir = mkdtempSync(join(tmpdir(), "evidence-"));
const path = (name: string) => join(dir, name);

const cli = (cmd: Command, args: string[]) => runCli((a) => cmd.run(a), args);

/** A vCon's asset on `svc` with a create and an update event, each sealed before the next. */
async function vconTrail(svc: TestService, tok: string, uuid: string) {
  const created = await createAsset(svc, tok, { arc_display_type: "vcon" });
  for (const [i, op] of ["vcon_create", "vcon_update"].entries()) {
    await svc.api(`/archivist/v2/${created.identity}/events`, {
      method: "POST",
      token: tok,
      json: vconEvent(uuid, op, `2025-03-0${i + 1}`),
    });
    // Sealed before the next is posted, so the two events are first covered by different seals.
    await untilSealed(svc, tok, created.identity);
  }
  return created;
}

/** The service's published trust material, saved as a relying party would have obtained it. */
async function saveRoots(svc: TestService, tenancy: string, prefix: string) {
  writeFileSync(
    path(`${prefix}-keys.cbor`),
    new Uint8Array(await (await fetch(`${svc.url}/.well-known/scitt-keys`)).arrayBuffer()),
  );
  writeFileSync(
    path(`${prefix}-log.vkey`),
    await (await fetch(`${svc.url}/archivist/v1/merklelogs/${tenancy}/tlog/key`)).text(),
  );
}

beforeAll(async () => {
  [s, forger] = await Promise.all([
    startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" }),
    startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" }),
  ]);
  token = await s.token(s.a);
  const genuine = await vconTrail(s, token, vcon);
  asset = genuine.identity;
  tenant = genuine.tenant_identity.replace("tenant/", "");
  await saveRoots(s, tenant, "genuine");
  // Another service, the same vCon's subject: a bundle made there is self-consistent under its own keys.
  const forged = await vconTrail(forger, await forger.token(forger.a), vcon);
  await saveRoots(forger, forged.tenant_identity.replace("tenant/", ""), "forger");
  const creds = [
    "--url",
    forger.url,
    "--client-id",
    forger.a.clientId,
    "--client-secret",
    forger.a.clientSecret,
  ];
  const f = await cli(exportCommand, [`vcon://${vcon}`, ...creds, "--out", path("forged.json")]);
  expect(f.code, f.out).toBe(2);
  await forger.stop();
}, 180_000);
afterAll(() => s?.stop());

const pinned = (which = "genuine") => ["--keys", path(`${which}-keys.cbor`)];

describe("evidence bundles", () => {
  it("export an asset's and a vCon's trail, then verify with the service stopped", async () => {
    const creds = ["--url", s.url, "--client-id", s.a.clientId, "--client-secret", s.a.clientSecret];
    const a = await cli(exportCommand, [asset, ...creds, ...pinned(), "--out", path("asset.json")]);
    expect(a, a.out).toMatchObject({ code: 0 });
    expect(a.out).toMatch(/^wrote .*asset\.json: 3 record\(s\), 1 log\(s\); VERIFIED/);
    // Without a trust root the export is written, and its verdict is only self-consistent.
    const v = await cli(exportCommand, [`vcon://${vcon}`, ...creds, "--out", path("vcon.json")]);
    expect(v, v.out).toMatchObject({ code: 2 });
    expect(v.out).toMatch(/SELF-CONSISTENT, KEYS NOT PINNED/);
    const bundle = JSON.parse(readFileSync(path("vcon.json"), "utf8")) as EvidenceBundle;
    expect(bundle).toMatchObject({
      format: "vcon-archivist/evidence-bundle",
      version: 1,
      subject: { kind: "vcon" },
    });
    // The route's own verdict rides along: checked with the service's keys, and labelled so.
    expect(bundle.service_verdict).toMatchObject({
      code: "self-consistent-unpinned",
      ok: false,
      exit_code: 2,
      trust: { level: "unpinned", roots: [expect.stringMatching(/the service's own keys/)] },
    });
    expect(
      bundle.records.map((r) => (r.record.event_attributes as { vcon_operation: string }).vcon_operation),
    ).toEqual(["vcon_create", "vcon_update"]);
    const log = bundle.logs[0];
    expect(log?.seals.length).toBeGreaterThanOrEqual(2);
    expect(log?.consistency.length).toBe((log?.seals.length ?? 0) - 1);
    // Each record also in the RFC 9162 tree, tied to the log's signed C2SP checkpoint.
    for (const r of bundle.records) expect(r.receipts.map((x) => x.profile)).toEqual(["mmr", "rfc9162"]);
    expect(log?.checkpoints?.[0]?.note).toMatch(/\/tlog\n\d+\n[A-Za-z0-9+/=]+\n\n\u2014 /);
    expect(log?.checkpoints?.[0]?.key).toMatch(/\+[0-9a-f]{8}\+/);

    await s.stop();
    // Nothing answers at the service's address any more.
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
    for (const file of ["asset.json", "vcon.json"]) {
      const bare = await cli(verifyPublicCommand, ["bundle", path(file)]);
      expect(bare, bare.out).toMatchObject({ code: 2 });
      expect(bare.out).toMatch(/^SELF-CONSISTENT, KEYS NOT PINNED: \d record\(s\) of /m);
      // The fingerprints to compare out of band.
      expect(bare.out).toMatch(/key cose-key-set \/\.well-known\/scitt-keys: sha256:[0-9a-f]{64}/);
      expect(bare.out).toMatch(/key log-key .*\/tlog: .*\+[0-9a-f]{8}\+/);
      const r = await cli(verifyPublicCommand, ["bundle", path(file), ...pinned()]);
      expect(r, r.out).toMatchObject({ code: 0 });
      expect(r.out).toMatch(
        /^VERIFIED \(keys pinned, not witnessed\): \d record\(s\) of .+, each in the log/m,
      );
      expect(r.out).toMatch(/not checked: completeness/);
      expect(r.out).toMatch(/not checked: split view/);
      // The log's checkpoint key alone pins the records through their RFC 9162 receipts.
      const byLog = await cli(verifyPublicCommand, [
        "bundle",
        path(file),
        "--log-key",
        path("genuine-log.vkey"),
      ]);
      expect(byLog, byLog.out).toMatchObject({ code: 0 });
    }
    const json = JSON.parse((await cli(verifyPublicCommand, ["bundle", path("vcon.json"), "--json"])).out);
    expect(json).toMatchObject({
      code: "self-consistent-unpinned",
      ok: false,
      exit_code: 2,
      trust: { level: "unpinned" },
    });
  });

  it("judges a bundle anew, whatever verdict the service attached to it", async () => {
    const bundle = JSON.parse(readFileSync(path("vcon.json"), "utf8")) as EvidenceBundle;
    writeFileSync(
      path("claims-verified.json"),
      JSON.stringify({ ...bundle, service_verdict: { code: "verified" } }),
    );
    const bare = await cli(verifyPublicCommand, ["bundle", path("claims-verified.json"), "--json"]);
    expect(bare.code, bare.out).toBe(2);
    const report = JSON.parse(bare.out) as { code: string; unsigned: string[] };
    expect(report.code).toBe("self-consistent-unpinned");
    expect(report.unsigned.some((u) => u.startsWith("service_verdict:"))).toBe(true);
  });

  it("never calls a bundle of another service's keys verified, and refuses it under the genuine roots", async () => {
    const bare = await cli(verifyPublicCommand, ["bundle", path("forged.json")]);
    expect(bare.code, bare.out).toBe(2);
    expect(bare.out).not.toMatch(/^VERIFIED/m);
    for (const roots of [pinned(), ["--log-key", path("genuine-log.vkey")]]) {
      const r = await cli(verifyPublicCommand, ["bundle", path("forged.json"), ...roots, "--json"]);
      expect(r.code, r.out).toBe(3);
      expect(JSON.parse(r.out)).toMatchObject({ code: "policy-failed", ok: false });
    }
    // Claiming to be the genuine service contradicts the receipts' signed issuer.
    const claimed = JSON.parse(readFileSync(path("forged.json"), "utf8")) as EvidenceBundle;
    claimed.service = s.url;
    writeFileSync(path("claimed.json"), JSON.stringify(claimed));
    const c = await cli(verifyPublicCommand, ["bundle", path("claimed.json")]);
    expect(c.code, c.out).toBe(1);
    expect(c.out).toMatch(/^TAMPERED: the bundle says it is from .*, its receipts were issued by /m);
    // And the genuine bundle is refused under the forger's keys.
    const wrong = await cli(verifyPublicCommand, ["bundle", path("vcon.json"), ...pinned("forger")]);
    expect(wrong.code, wrong.out).toBe(3);
  });

  it("gives each tampering a non-verified code or an unsigned label", async () => {
    const bundle = JSON.parse(readFileSync(path("vcon.json"), "utf8")) as EvidenceBundle;
    const check = async (name: string, change: (b: EvidenceBundle) => void) => {
      const b = structuredClone(bundle);
      change(b);
      writeFileSync(path(name), JSON.stringify(b));
      const r = await cli(verifyPublicCommand, ["bundle", path(name), ...pinned(), "--json"]);
      return {
        code: r.code,
        v: JSON.parse(r.out) as Record<string, unknown> & {
          unsigned: string[];
          not_checked: string[];
          problems: string[];
        },
      };
    };
    const subject = await check("subject.json", (b) => {
      b.subject.id = `vcon://${crypto.randomUUID()}`;
    });
    expect(subject.code).toBe(1);
    expect(subject.v.problems[0]).toMatch(/not of the bundle's subject/);
    const service = await check("service.json", (b) => {
      b.service = "https://archivist.example";
    });
    expect(service.code).toBe(1);
    const status = await check("status.json", (b) => {
      for (const r of b.records) r.record.confirmation_status = "UNEQUIVOCAL";
    });
    expect(status.code).toBe(0);
    expect(status.v).toMatchObject({
      records: [{ trust: "pinned", claimed_confirmation_status: "UNEQUIVOCAL" }, {}],
    });
    expect(status.v.unsigned.join("\n")).toMatch(/records\[\]\.confirmation_status .*claim/);
    const field = await check("field.json", (b) => {
      (b.records[0] as { record: Record<string, unknown> }).record.approved_by = "the court";
    });
    expect(field.code).toBe(0);
    expect(field.v.unsigned.join("\n")).toMatch(
      /records\[\]\.approved_by \(1 record\(s\)\): not part of the signed leaf/,
    );
    const assets = await check("assets.json", (b) => {
      (b.assets[0] as { attributes: Record<string, unknown> }).attributes = { arc_display_type: "contract" };
    });
    expect(assets.code).toBe(0);
    expect(assets.v.unsigned.join("\n")).toMatch(/assets\[\]: .*no signature covers them/);
    const otherAsset = await check("other-asset.json", (b) => {
      (b.assets[0] as { identity: string }).identity = `assets/${crypto.randomUUID()}`;
    });
    expect(otherAsset.code).toBe(1);
    // The bundle carries its subject's index lookup: a record dropped is named (issue 72).
    const dropped = await check("dropped.json", (b) => {
      b.records.splice(1, 1);
    });
    expect(dropped.code).toBe(1);
    expect(dropped.v.problems.join("\n")).toMatch(/log entry \d+ of tenant\/.* is not in the bundle/);
    // Without the lookup, nothing says a record is missing: only that the bundle is not proven complete.
    const unindexed = await check("dropped-unindexed.json", (b) => {
      b.records.splice(1, 1);
      delete b.index;
    });
    expect(unindexed.code).toBe(0);
    expect(unindexed.v.not_checked.join("\n")).toMatch(/completeness: .*records may have been left out/);
  });

  it("refuses a bundle whose record, seal or proof was changed, and an unknown version", async () => {
    const bundle = JSON.parse(readFileSync(path("vcon.json"), "utf8")) as EvidenceBundle;
    const write = (name: string, b: unknown) => {
      writeFileSync(path(name), JSON.stringify(b));
      return path(name);
    };
    const changed = structuredClone(bundle);
    (changed.records[0]?.record.event_attributes as Record<string, string>).timestamp_declared =
      "2024-12-31T00:00:00Z";
    const r1 = await cli(verifyPublicCommand, ["bundle", write("changed.json", changed)]);
    expect(r1.code).toBe(1);
    expect(r1.out).toMatch(/^TAMPERED: assets\/.*: /m);

    const badProof = structuredClone(bundle);
    const path0 = badProof.logs[0]?.consistency[0]?.paths.find((p) => p.length);
    if (path0) path0[0] = "00".repeat(32);
    else badProof.logs[0]?.consistency.splice(0, 1);
    const r2 = await cli(verifyPublicCommand, ["bundle", write("proof.json", badProof), "--json"]);
    expect(r2.code).toBe(1);
    expect(JSON.parse(r2.out)).toMatchObject({ ok: false, code: "tampered", logs: [{ ok: false }] });

    const forged = structuredClone(bundle);
    const seal = forged.logs[0]?.seals[0];
    if (seal)
      seal.seal = Buffer.from(
        Buffer.from(seal.seal, "base64").map((b, i, all) => (i === all.length - 1 ? b ^ 1 : b)),
      ).toString("base64");
    const r3 = await cli(verifyPublicCommand, ["bundle", write("forged.json", forged)]);
    expect(r3.code).toBe(1);
    expect(r3.out).toMatch(/not signed by the keys checked with|malformed/);

    const forgedCheckpoint = structuredClone(bundle);
    const cp = forgedCheckpoint.logs[0]?.checkpoints?.[0];
    if (cp) cp.note = cp.note.replace(/\n(\d+)\n/, (_m, n: string) => `\n${Number(n) + 1}\n`);
    const r4 = await cli(verifyPublicCommand, ["bundle", write("checkpoint.json", forgedCheckpoint)]);
    expect(r4.code).toBe(1);
    expect(r4.out).toMatch(
      /the checkpoint carries a signature line under the log.s key .* that does not verify under that key/,
    );

    const future = await cli(verifyPublicCommand, ["bundle", write("v2.json", { ...bundle, version: 2 })]);
    expect(future).toMatchObject({
      code: 4,
      out: "CANNOT EVALUATE: evidence bundle version 2 is not one this verifier reads (1)\n",
    });
  });

  it("reports what it does not know as not checked, without counting it as evidence", async () => {
    const bundle = JSON.parse(readFileSync(path("vcon.json"), "utf8")) as EvidenceBundle;
    const extended = structuredClone(bundle);
    extended.records[0]?.receipts.push({ profile: "future-profile", log: "tenant/x", receipt: "AA==" });
    extended.extensions = { cosignatures: [] };
    writeFileSync(path("ext.json"), JSON.stringify(extended));
    const r = await cli(verifyPublicCommand, ["bundle", path("ext.json"), ...pinned()]);
    expect(r, r.out).toMatchObject({ code: 0 });
    expect(r.out).toMatch(
      /not checked: .*a receipt of profile "future-profile" \(unknown to this verifier\)/,
    );
    expect(r.out).toMatch(/not checked: extension "cosignatures" \(unknown to this verifier\)/);
    const only = structuredClone(bundle);
    if (only.records[0])
      only.records[0].receipts = [{ profile: "future-profile", log: "tenant/x", receipt: "AA==" }];
    writeFileSync(path("only.json"), JSON.stringify(only));
    expect((await cli(verifyPublicCommand, ["bundle", path("only.json"), ...pinned()])).code).toBe(1);
  });
});

describe("the evidence route", () => {
  const suite = forSuite(async () => ({ s: await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" }) }));

  it("needs a token, and never gives another tenancy's trail", async () => {
    const tokA = await suite.s.token(suite.s.a);
    const a = (await createAsset(suite.s, tokA, { arc_display_type: "x" })).identity;
    const uuid = a.split("/")[1];
    expect((await suite.s.api(`/archivist/v1/evidence/assets/${uuid}`)).status).toBe(401);
    const other = await suite.s.api(`/archivist/v1/evidence/assets/${uuid}`, {
      token: await suite.s.token(suite.s.b),
    });
    expect(other.status).toBe(404);
    const unknown = await suite.s.api(`/archivist/v1/evidence/vcons/${crypto.randomUUID()}`, { token: tokA });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }).message).toMatch(/no records you may read/);
    const mine = await suite.s.api(`/archivist/v1/evidence/assets/${uuid}`, { token: tokA });
    expect(mine.status).toBe(200);
    expect(mine.headers.get("content-disposition")).toMatch(/attachment; filename="evidence-asset-/);
  });
});

describe("evidence exported while the witnesses lag", () => {
  const suite = forSuite(async () => ({ s: await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" }) }));

  it("verifies when the published checkpoint is older than the receipts' trees", async () => {
    const tok = await suite.s.token(suite.s.a);
    const uuid = crypto.randomUUID();
    const created = await vconTrail(suite.s, tok, uuid);
    const tenancy = created.tenant_identity.replace("tenant/", "");
    await suite.s.api(`/archivist/v2/${created.identity}/events`, {
      method: "POST",
      token: tok,
      json: vconEvent(uuid, "vcon_update", "2025-03-09"),
    });
    await untilSealed(suite.s, tok, created.identity);
    await suite.s.service.workers.flush();
    // As when a witness cosigned the first checkpoint and then went down: the service publishes
    // the newest *witnessed* checkpoint, while receipts cover the newest seal.
    await suite.s.service.ctx.db.query(
      "update tlog_checkpoints set witnessed = (size = (select min(size) from tlog_checkpoints where tenant_id = $1)) where tenant_id = $1",
      [tenancy],
    );
    await saveRoots(suite.s, tenancy, "lagging");
    const creds = [
      "--url",
      suite.s.url,
      "--client-id",
      suite.s.a.clientId,
      "--client-secret",
      suite.s.a.clientSecret,
    ];
    const e = await cli(exportCommand, [
      `vcon://${uuid}`,
      ...creds,
      "--keys",
      path("lagging-keys.cbor"),
      "--out",
      path("lagging.json"),
    ]);
    expect(e, e.out).toMatchObject({ code: 0 });
    const bundle = JSON.parse(readFileSync(path("lagging.json"), "utf8")) as EvidenceBundle;
    const cp = bundle.logs[0]?.checkpoints?.[0];
    const cpSize = Number(cp?.note.split("\n")[1]);
    const treeSizes = bundle.records.flatMap((r) =>
      r.receipts.filter((x) => x.profile === "rfc9162").map((x) => x.tree_size ?? 0),
    );
    expect(Math.max(...treeSizes)).toBeGreaterThan(cpSize);
    // The consistency runs from the checkpoint up to the newer receipts' trees.
    expect(cp?.consistency.some((c) => c.from === cpSize && c.to > cpSize)).toBe(true);
    const r = await cli(verifyPublicCommand, [
      "bundle",
      path("lagging.json"),
      "--keys",
      path("lagging-keys.cbor"),
    ]);
    expect(r, r.out).toMatchObject({ code: 0 });
    expect(r.out).toMatch(/newer than the checkpoint of \d+ entries: the receipt's tree extends it/);
    // The log key alone pins only what the older checkpoint covers: the newest record is not under it.
    const byLog = await cli(verifyPublicCommand, [
      "bundle",
      path("lagging.json"),
      "--log-key",
      path("lagging-log.vkey"),
    ]);
    expect(byLog.code, byLog.out).toBe(3);
    expect(byLog.out).toMatch(/not proven under any key you pinned/);
  });
});

describe("the evidence route under a rate limit", () => {
  const suite = forSuite(async () => ({
    s: await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100", ARCHIVIST_RATE_LIMIT_RPS: "3" }),
  }));

  it("answers 429 when gathering goes over the caller's limit, recognised by status", async () => {
    const tok = await suite.s.token(suite.s.a);
    const created = await createAsset(suite.s, tok, { arc_display_type: "x" });
    // The gathering reads the asset, its events, the keys, each receipt and the seals: well over 3 a second.
    const answer = await until(async () => {
      const res = await suite.s.api(`/archivist/v1/evidence/${created.identity}`, { token: tok });
      return res.status === 429 ? res : undefined;
    }, 20_000);
    expect(await answer.json()).toMatchObject({
      message: expect.stringMatching(/^gathering the evidence went over the rate limit/),
    });
  });
});
