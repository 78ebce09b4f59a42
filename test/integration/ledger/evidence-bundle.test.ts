import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Command } from "../../../src/cli/commands.js";
import { exportCommand } from "../../../src/cli/export.js";
import { verifyPublicCommand } from "../../../src/cli/verify-public.js";
import type { EvidenceBundle } from "../../../src/core/bundle/index.js";
import { runCli } from "../../helpers/cli-output.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { untilSealed, vconEvent } from "../../helpers/vcon-event.js";

let s: TestService;
let token: string;
let asset: string;
const vcon = crypto.randomUUID();
const dir = mkdtempSync(join(tmpdir(), "evidence-"));
const path = (name: string) => join(dir, name);

const cli = (cmd: Command, args: string[]) => runCli((a) => cmd.run(a), args);

beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  token = await s.token(s.a);
  asset = (
    (await (
      await s.api("/archivist/v2/assets", {
        method: "POST",
        token,
        json: { attributes: { arc_display_type: "vcon" } },
      })
    ).json()) as { identity: string }
  ).identity;
  for (const [i, op] of ["vcon_create", "vcon_update"].entries()) {
    await s.api(`/archivist/v2/${asset}/events`, {
      method: "POST",
      token,
      json: vconEvent(vcon, op, `2025-03-0${i + 1}`),
    });
    // Sealed before the next is posted, so the two events are first covered by different seals.
    await untilSealed(s, token, asset);
  }
}, 60_000);
afterAll(() => s?.stop());

describe("evidence bundles", () => {
  it("export an asset's and a vCon's trail, then verify with the service stopped", async () => {
    const creds = ["--url", s.url, "--client-id", s.a.clientId, "--client-secret", s.a.clientSecret];
    const a = await cli(exportCommand, [asset, ...creds, "--out", path("asset.json")]);
    expect(a, a.out).toMatchObject({ code: 0 });
    expect(a.out).toMatch(/^wrote .*asset\.json: 3 record\(s\), 1 log\(s\); VERIFIED/);
    const v = await cli(exportCommand, [`vcon://${vcon}`, ...creds, "--out", path("vcon.json")]);
    expect(v, v.out).toMatchObject({ code: 0 });
    const bundle = JSON.parse(readFileSync(path("vcon.json"), "utf8")) as EvidenceBundle;
    expect(bundle).toMatchObject({
      format: "vcon-archivist/evidence-bundle",
      version: 1,
      subject: { kind: "vcon" },
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
      const r = await cli(verifyPublicCommand, ["bundle", path(file)]);
      expect(r, r.out).toMatchObject({ code: 0 });
      expect(r.out).toMatch(
        /^VERIFIED: \d record\(s\) of .+, every receipt valid, every seal consistent with the latest$/m,
      );
      expect(r.out).toMatch(/C2SP checkpoint \(size \d+\) is signed by the log's key/);
    }
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
    expect(r1.out).toMatch(/^NOT VERIFIED: 1 of 2 record\(s\) without a valid receipt/m);

    const badProof = structuredClone(bundle);
    const path0 = badProof.logs[0]?.consistency[0]?.paths.find((p) => p.length);
    if (path0) path0[0] = "00".repeat(32);
    else badProof.logs[0]?.consistency.splice(0, 1);
    const r2 = await cli(verifyPublicCommand, ["bundle", write("proof.json", badProof), "--json"]);
    expect(r2.code).toBe(1);
    expect(JSON.parse(r2.out)).toMatchObject({ ok: false, logs: [{ ok: false }] });

    const forged = structuredClone(bundle);
    const seal = forged.logs[0]?.seals[0];
    if (seal)
      seal.seal = Buffer.from(
        Buffer.from(seal.seal, "base64").map((b, i, all) => (i === all.length - 1 ? b ^ 1 : b)),
      ).toString("base64");
    const r3 = await cli(verifyPublicCommand, ["bundle", write("forged.json", forged)]);
    expect(r3.code).toBe(1);
    expect(r3.out).toMatch(/not signed by the service's keys|malformed/);

    const forgedCheckpoint = structuredClone(bundle);
    const cp = forgedCheckpoint.logs[0]?.checkpoints?.[0];
    if (cp) cp.note = cp.note.replace(/\n(\d+)\n/, (_m, n: string) => `\n${Number(n) + 1}\n`);
    const r4 = await cli(verifyPublicCommand, ["bundle", write("checkpoint.json", forgedCheckpoint)]);
    expect(r4.code).toBe(1);
    expect(r4.out).toMatch(/checkpoint does not verify/);

    const future = await cli(verifyPublicCommand, ["bundle", write("v2.json", { ...bundle, version: 2 })]);
    expect(future).toMatchObject({
      code: 1,
      out: "FAILED evidence bundle version 2 is not one this verifier reads (1)\n",
    });
  });

  it("reports what it does not know as not checked, without counting it as evidence", async () => {
    const bundle = JSON.parse(readFileSync(path("vcon.json"), "utf8")) as EvidenceBundle;
    const extended = structuredClone(bundle);
    extended.records[0]?.receipts.push({ profile: "future-profile", log: "tenant/x", receipt: "AA==" });
    extended.extensions = { cosignatures: [] };
    writeFileSync(path("ext.json"), JSON.stringify(extended));
    const r = await cli(verifyPublicCommand, ["bundle", path("ext.json")]);
    expect(r, r.out).toMatchObject({ code: 0 });
    expect(r.out).toMatch(
      /not checked \(unknown to this verifier\): .*a receipt of profile "future-profile"/,
    );
    expect(r.out).toMatch(/not checked \(unknown to this verifier\): extension "cosignatures"/);
    const only = structuredClone(bundle);
    if (only.records[0])
      only.records[0].receipts = [{ profile: "future-profile", log: "tenant/x", receipt: "AA==" }];
    writeFileSync(path("only.json"), JSON.stringify(only));
    expect((await cli(verifyPublicCommand, ["bundle", path("only.json")])).code).toBe(1);
  });
});

describe("the evidence route", () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  });
  afterAll(() => t?.stop());

  it("needs a token, and never gives another tenancy's trail", async () => {
    const tokA = await t.token(t.a);
    const a = (
      (await (
        await t.api("/archivist/v2/assets", {
          method: "POST",
          token: tokA,
          json: { attributes: { arc_display_type: "x" } },
        })
      ).json()) as { identity: string }
    ).identity;
    const uuid = a.split("/")[1];
    expect((await t.api(`/archivist/v1/evidence/assets/${uuid}`)).status).toBe(401);
    const other = await t.api(`/archivist/v1/evidence/assets/${uuid}`, { token: await t.token(t.b) });
    expect(other.status).toBe(404);
    const unknown = await t.api(`/archivist/v1/evidence/vcons/${crypto.randomUUID()}`, { token: tokA });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }).message).toMatch(/no records you may read/);
    const mine = await t.api(`/archivist/v1/evidence/assets/${uuid}`, { token: tokA });
    expect(mine.status).toBe(200);
    expect(mine.headers.get("content-disposition")).toMatch(/attachment; filename="evidence-asset-/);
  });
});
