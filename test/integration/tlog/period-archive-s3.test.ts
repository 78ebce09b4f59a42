import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportCommand } from "../../../src/cli/export.js";
import { archiveClosedPeriods, dropArchivedPeriods } from "../../../src/workers/log-archive.js";
import { closeLogPeriod } from "../../../src/workers/log-period.js";
import { loadSealKeys } from "../../../src/workers/seal-keys.js";
import { runCli } from "../../helpers/cli-output.js";
import { until } from "../../helpers/poll.js";
import { evidence, postEvent, tenancyLog } from "../../helpers/records.js";
import { type S3Server, startS3Server } from "../../helpers/s3-server.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { verifyCli, verifyRecordFiles } from "../../helpers/verify-cli.js";

/*
 * Closed log periods moved to an S3-compatible bucket (the blob store's S3 client, aws4fetch)
 * and dropped from the database while the service runs and records keep arriving: every receipt
 * of every period, the log's seals and its chain still verify.
 */
let s3: S3Server;
let s: TestService;
let token: string;
const dir = mkdtempSync(join(tmpdir(), "period-archive-s3-"));
beforeAll(async () => {
  s3 = await startS3Server();
  s = await startTestService({
    ARCHIVIST_BLOB_STORE: "s3",
    ARCHIVIST_S3_ENDPOINT: s3.endpoint,
    ARCHIVIST_S3_BUCKET: s3.bucket,
    ARCHIVIST_S3_ACCESS_KEY_ID: s3.accessKeyId,
    ARCHIVIST_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    ARCHIVIST_SEAL_INTERVAL_MS: "100",
  });
  token = await s.token(s.a);
}, 120_000);
afterAll(async () => {
  await s?.stop();
  await s3?.close();
});

async function post(asset: string, i: number): Promise<string> {
  const r = await postEvent(s, token, asset, evidence({ arc_display_type: "s3", i: String(i) }));
  expect(r.status).toBe(200);
  return ((await r.json()) as { identity: string }).identity;
}

const settled = (id: string) =>
  until(async () => {
    const e = (await (await s.api(`/archivist/v2/${id}`, { token })).json()) as Record<string, unknown>;
    return ["CONFIRMED", "UNEQUIVOCAL"].includes(String(e.confirmation_status)) ? e : undefined;
  }, 120_000);

describe("closed log periods in an S3 bucket", () => {
  it("are archived and dropped while records stream in; every proof is served from the bucket and verifies", async () => {
    const { asset, tenant } = await tenancyLog(s, token, "s3");
    const ids: string[] = [];
    // Three periods closed as an operator closes them (`archivist log close`), each after a stream
    // of concurrent writes; the size and age rules are log-periods.test.ts's. Closing here, not by
    // the size rule, keeps what this test is about (the move to the bucket) free of a race with
    // the periods worker.
    const sealKeys = await loadSealKeys(s.service.ctx);
    for (let round = 0; round < 3; round++) {
      const stream = await Promise.all(
        Array.from({ length: 50 }, (_, j) => post(asset.identity, round * 50 + j)),
      );
      for (const id of stream) await settled(id);
      ids.push(...stream);
      const closed = await s.service.ctx.db.transaction((tx) =>
        closeLogPeriod(tx, tenant, sealKeys, s.service.ctx.logGuard),
      );
      expect(closed?.period).toBe(round);
    }
    const ctx = s.service.ctx;
    const before = (await s3.keys()).length;
    // Records keep arriving while the move and the drop run.
    const more = Promise.all(Array.from({ length: 40 }, (_, i) => post(asset.identity, 1000 + i)));
    const archived = await archiveClosedPeriods(
      { db: ctx.db, blobs: ctx.blobs, tmpDir: join(ctx.config.dataDir, "blobs", "tmp") },
      tenant,
    );
    expect(archived?.periods.length).toBeGreaterThanOrEqual(2);
    expect((await s3.keys()).length - before).toBe(archived?.objects);
    const dropped = await dropArchivedPeriods(ctx, tenant);
    expect(dropped?.tree).toBeGreaterThan(100);
    expect(dropped?.mmr).toBeGreaterThan(100);
    ids.push(...(await more));
    // Nothing left to do: a second run finds everything archived and dropped.
    expect(await dropArchivedPeriods(ctx, tenant)).toBeUndefined();

    const keys = join(dir, "keys.cbor");
    writeFileSync(keys, new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()));
    const vkey = join(dir, "log.vkey");
    writeFileSync(vkey, await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text());
    for (const id of ids) {
      const record = await settled(id);
      const [, a, , e] = id.split("/");
      for (const profile of ["", "?profile=rfc9162"]) {
        const receipt = await s.api(`/archivist/v1/receipts/assets/${a}/events/${e}${profile}`, { token });
        expect(receipt.status, `${id}${profile}`).toBe(200);
        const v = await verifyRecordFiles(dir, record, {
          receipt: new Uint8Array(await receipt.arrayBuffer()),
          keys,
        });
        expect(v, `${id}${profile}: ${v.out}`).toMatchObject({ code: 0 });
      }
    }
    const log = await verifyCli(["--log", tenant, "--url", s.url, "--keys", keys, "--log-key", vkey]);
    expect(log, log.out).toMatchObject({ code: 0 });
    expect(log.out).toMatch(/periods chain/);
    // The asset's evidence bundle: every record of every period with both receipts, verified offline.
    const bundle = await runCli(
      (x) => exportCommand.run(x),
      [
        asset.identity,
        "--url",
        s.url,
        "--client-id",
        s.a.clientId,
        "--client-secret",
        s.a.clientSecret,
        "--keys",
        keys,
        "--out",
        join(dir, "bundle.json"),
      ],
    );
    expect(bundle, bundle.out).toMatchObject({ code: 0 });
    expect(bundle.out).toMatch(
      new RegExp(`^wrote .*bundle\\.json: ${ids.length + 1} record\\(s\\), 1 log\\(s\\); VERIFIED`),
    );
  }, 300_000);
});
