import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportCommand } from "../../../src/cli/export.js";
import { verifyCommand } from "../../../src/cli/verify.js";
import { tlogProofVerdict } from "../../../src/lookup/keyed-verdict.js";
import { PublicApi } from "../../../src/lookup/public-api.js";
import { emptyPolicy } from "../../../src/verify/verdict/policy.js";
import { looksLikeTlogProof, recordOfTlogProof } from "../../../src/web/tlog-proof.js";
import { runCli } from "../../helpers/cli-output.js";
import { until } from "../../helpers/poll.js";
import { createAsset } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { newAsset, postVconEvent, untilSealed } from "../../helpers/vcon-event.js";

/*
 * A record's c2sp.org/tlog-proof@v1 round-trips: `archivist export --tlog-proof` writes it from
 * the route, `archivist verify --tlog-proof` checks it against the record's JSON and the log's
 * key; a changed proof or record fails.
 */
let s: TestService;
let token: string;
const dir = mkdtempSync(join(tmpdir(), "tlog-proof-"));
const path = (name: string) => join(dir, name);
const cli = (cmd: typeof exportCommand, args: string[]) => runCli((a) => cmd.run(a), args);

beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  token = await s.token(s.a);
}, 120_000);
afterAll(() => s?.stop());

/** The record's proof once a checkpoint covers it (409 before). */
const proofReady = (route: string) =>
  until(async () => {
    const r = await s.api(route, { token });
    if (r.status === 409) return undefined;
    expect(r.status, await r.clone().text()).toBe(200);
    return r.text();
  });

describe("c2sp.org/tlog-proof@v1", () => {
  it("round-trips an asset event and an asset-free event through export and verify; a changed one fails", async () => {
    const asset = await newAsset(s, token);
    const event = await postVconEvent(s, token, asset, crypto.randomUUID(), "vcon_create", "2025-03-01");
    const free = (await (
      await s.api("/archivist/v1/events", {
        method: "POST",
        token,
        json: { attributes: { k: "v" }, event_type: "t" },
      })
    ).json()) as { identity: string };
    await untilSealed(s, token, asset);
    for (const [identity, read] of [
      [event.identity, `/archivist/v2/${event.identity}`],
      [free.identity, `/archivist/v1/${free.identity}`],
    ] as const) {
      const served = await proofReady(`/archivist/v1/tlog-proofs/${identity}`);
      expect(served.split("\n")[0]).toBe("c2sp.org/tlog-proof@v1");
      expect(Buffer.from((served.split("\n")[1] as string).replace(/^extra /, ""), "base64").toString()).toBe(
        identity,
      );
      const proofFile = path(`${identity.replace(/\//g, "_")}.tlog-proof`);
      const exported = await cli(exportCommand, [
        identity,
        "--tlog-proof",
        "--url",
        s.url,
        "--token",
        token,
        "--out",
        proofFile,
      ]);
      // The log key came from the service itself: self-consistent, not verified (exit 2).
      expect(exported, exported.out).toMatchObject({ code: 2 });
      expect(exported.out).toMatch(/SELF-CONSISTENT, KEYS NOT PINNED/);
      // The same record at the same index (the log may have grown between the two reads, so the
      // proof's hashes and checkpoint may differ).
      const head = (t: string) =>
        t.split("\n").slice(0, t.split("\n").findIndex((l) => l.startsWith("index ")) + 1);
      expect(head(readFileSync(proofFile, "utf8"))).toEqual(head(served));

      const record = (await (await s.api(read, { token })).json()) as Record<string, unknown>;
      const recordFile = path(`${identity.replace(/\//g, "_")}.json`);
      writeFileSync(recordFile, JSON.stringify(record));
      const ok = await cli(verifyCommand, [recordFile, "--tlog-proof", proofFile, "--url", s.url]);
      expect(ok, ok.out).toMatchObject({ code: 2 });
      expect(ok.out).toMatch(
        /is log entry \d+ of .*\/merklelogs\/.*\/tlog, under its checkpoint of \d+ entries \(tlog proof\)/,
      );
      // The asset event's receipt names it by the same log entry, its MMR position named as such.
      if (identity === event.identity) {
        const leaf = /is log entry (\d+) of /.exec(ok.out)?.[1];
        const mmr = (record.merklelog_entry as { commit: { index: string } }).commit.index;
        const receiptFile = path(`${identity.replace(/\//g, "_")}.cose`);
        writeFileSync(
          receiptFile,
          new Uint8Array(await (await s.api(`/archivist/v1/receipts/${identity}`, { token })).arrayBuffer()),
        );
        const byReceipt = await cli(verifyCommand, [recordFile, "--receipt", receiptFile, "--url", s.url]);
        expect(byReceipt.out).toContain(`is log entry ${leaf} (MMR position ${mmr}) of tenant/`);
      }
      // Offline, with the log's key from a file.
      const keyFile = path("key.vkey");
      const tenant = String(record.tenant_identity ?? record.origin_tenant).replace(/^tenant\//, "");
      writeFileSync(keyFile, await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text());
      expect(
        (await cli(verifyCommand, [recordFile, "--tlog-proof", proofFile, "--log-key", keyFile])).code,
      ).toBe(0);

      // A changed proof hash, a changed index, a changed record: each fails.
      const text = readFileSync(proofFile, "utf8");
      const lines = text.split("\n");
      const hashAt = lines.findIndex((l) => l.startsWith("index ")) + 1;
      const h = Buffer.from(lines[hashAt] as string, "base64");
      h[5] = (h[5] as number) ^ 0x10;
      const tampered = [...lines];
      tampered[hashAt] = h.toString("base64");
      const badFile = path("bad.tlog-proof");
      writeFileSync(badFile, tampered.join("\n"));
      const bad = await cli(verifyCommand, [recordFile, "--tlog-proof", badFile, "--log-key", keyFile]);
      expect(bad.code).toBe(1);
      expect(bad.out).toMatch(/the inclusion path does not lead/);
      writeFileSync(
        badFile,
        text.replace(/^index (\d+)$/m, (_m, n) => `index ${Number(n) + 1}`),
      );
      expect(
        (await cli(verifyCommand, [recordFile, "--tlog-proof", badFile, "--log-key", keyFile])).code,
      ).toBe(1);
      const changed = structuredClone(record);
      if (changed.event_attributes)
        (changed.event_attributes as Record<string, unknown>).payload = "00".repeat(32);
      else (changed.attributes as Record<string, unknown>).k = "changed";
      writeFileSync(recordFile, JSON.stringify(changed));
      expect(
        (await cli(verifyCommand, [recordFile, "--tlog-proof", proofFile, "--log-key", keyFile])).code,
      ).toBe(1);
    }
  });

  it("the /verify page's check reads a public record's proof, and fails a changed one", async () => {
    const asset = (await createAsset(s, token, { arc_display_type: "vcon" }, { public: true })).identity;
    await untilSealed(s, token, asset);
    const events = (await (await s.api(`/archivist/v2/${asset}/events`, { token })).json()) as {
      events: Array<{ identity: string }>;
    };
    const identity = events.events[0]?.identity as string;
    const proof = await proofReady(`/archivist/v1/tlog-proofs/${identity}`);
    expect(looksLikeTlogProof(new TextEncoder().encode(proof))).toBe(true);
    const page = new PublicApi(s.url);
    const read = await recordOfTlogProof(page, proof);
    expect(read.identity).toBe(identity);
    // The log key the service serves is its claim: self-consistent, never verified.
    const trust = { policy: emptyPolicy(), described: [] };
    const served = { served: read.servedLogKey };
    expect(await tlogProofVerdict(trust, read.record, proof, served)).toMatchObject({
      code: "self-consistent-unpinned",
    });
    // With the log key pinned (as a relying party obtained it): verified, keys pinned, not witnessed.
    const pinned = { policy: { ...emptyPolicy(), logKeys: [read.servedLogKey] }, described: ["--log-key"] };
    expect(await tlogProofVerdict(pinned, read.record, proof, {})).toMatchObject({
      code: "verified",
      trust: { level: "pinned" },
    });
    const changed = proof.replace(/^index (\d+)$/m, (_m, n) => `index ${Number(n) + 1}`);
    expect((await tlogProofVerdict(trust, read.record, changed, served)).code).toBe("tampered");
  });

  it("answers a record nobody may read as not found, and the export explains a wrong target", async () => {
    const other = await s.token(s.b);
    const free = (await (
      await s.api("/archivist/v1/events", { method: "POST", token, json: { attributes: { k: "private" } } })
    ).json()) as { identity: string };
    const res = await s.api(`/archivist/v1/tlog-proofs/${free.identity}`, { token: other });
    expect(res.status).toBe(404);
    const wrong = await cli(exportCommand, ["assets/x", "--tlog-proof", "--url", s.url, "--token", token]);
    // A target of the wrong form is a usage error (64), said on stderr, not a verdict.
    expect(wrong.code).toBe(64);
    expect(wrong.err).toMatch(/--tlog-proof takes a record/);
  });
});
