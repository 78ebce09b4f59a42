import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IndexLookup } from "../../../src/formats/vindex/lookup-format.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { openPglite } from "../../../src/store/drivers/pglite.js";
import { openPostgres } from "../../../src/store/drivers/postgres.js";
import { verifyLookup } from "../../../src/verify/vindex/lookup.js";
import { testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { createAsset } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { vconEvent } from "../../helpers/vcon-event.js";

// Issue 72, "Durable and honest": the index is believed only as far as its signed revisions go.
// A row rewritten under it gets no revision signed over it (the log is sealed on), and it comes
// back once the rows are.

const METRICS = "metrics-secret";
let s: TestService;
let token: string;
let tenant: string;
let asset: string;
const vcon = crypto.randomUUID();

/** The stopped service's database, as a writer with access to it would open it; closed after `write`. */
async function whileStopped(write: (db: Db) => Promise<unknown>): Promise<void> {
  const url = s.service.ctx.config.databaseUrl;
  await s.restart(async () => {
    const db = url ? await openPostgres(url, 1) : await openPglite(join(s.dataDir, "pgdata"));
    try {
      await write(db);
    } finally {
      await db.close();
    }
  });
}
const revisions = async () =>
  (
    (await (await s.api(`/archivist/v1/merklelogs/${tenant}/vindex/revisions?from=0&to=0`)).json()) as {
      size: number;
    }
  ).size;
const logSize = async () =>
  Number((await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text()).split("\n")[1]);
const lookup = async () => {
  const r = await s.api(`/archivist/v1/vindex/lookup?key=vcon://${vcon}`, { token: await s.token(s.a) });
  return { status: r.status, body: (await r.json()) as IndexLookup };
};
const logKey = async () => (await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()).trim();
const post = async (op: string) =>
  s.api(`/archivist/v2/${asset}/events`, {
    method: "POST",
    token: await s.token(s.a),
    json: vconEvent(vcon, op, "2025-04-01"),
  });
/** Waits until the index's newest revision covers the log's checkpoint; that size. */
const untilIndexed = () =>
  until(async () => {
    const r = await lookup();
    const size = await logSize();
    return r.status === 200 && r.body.revision.log_size === size ? size : undefined;
  }, 30_000);

beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100", ARCHIVIST_METRICS_TOKEN: METRICS });
  token = await s.token(s.a);
  const created = await createAsset(s, token, { arc_display_type: "vcon" });
  asset = created.identity;
  tenant = created.tenant_identity.replace("tenant/", "");
  for (const op of ["vcon_create", "vcon_update"]) expect((await post(op)).status).toBe(200);
  await untilIndexed();
}, 120_000);
afterAll(() => s?.stop());

describe(`an index whose rows were rewritten (${testEngine()})`, () => {
  it("signs no revision over them, seals the log on, answers 503, and resumes once they are put back", async () => {
    // The newest revision's row that filed an entry: its last entry is the one taken out.
    const [row] = await s.service.ctx.db.query<{ log_to: string; entries: Uint8Array }>(
      "select log_to, entries from vindex_filings where tenant_id = $1 and length(entries) > 0 order by log_to desc limit 1",
      [tenant],
    );
    if (!row) throw new Error("no index row");
    const original = Buffer.from(row.entries);
    // A database writer takes an entry out of a vCon's list, and the service restarts on it.
    await whileStopped(async (db) => {
      await db.query("update vindex_filings set entries = $3 where tenant_id = $1 and log_to = $2", [
        tenant,
        row.log_to,
        original.subarray(0, original.length - 40),
      ]);
    });
    const before = await revisions();
    const size = await logSize();
    expect((await post("vcon_analyze")).status).toBe(200);
    // The log is sealed on past the new record; the index signs nothing over the rewritten rows.
    await until(async () => ((await logSize()) > size ? true : undefined), 30_000);
    expect(await revisions()).toBe(before);
    expect((await lookup()).status).toBe(503);
    const metrics = await (
      await s.api("/metrics", { headers: { authorization: `Bearer ${METRICS}` } })
    ).text();
    expect(metrics).toMatch(/archivist_index_failures_total [1-9]/);
    expect(metrics).toMatch(/archivist_signing_refused_total\{what="index_checkpoint"\} [1-9]/);
    // Put back, the index catches up: the new record is filed and every entry proven.
    await whileStopped(async (db) => {
      await db.query("update vindex_filings set entries = $3 where tenant_id = $1 and log_to = $2", [
        tenant,
        row.log_to,
        original,
      ]);
    });
    await untilIndexed();
    const r = await lookup();
    expect(r.body.indices).toHaveLength(3);
    expect(verifyLookup(r.body, await logKey())).toMatchObject({ ok: true, present: true });
  });

  it("refuses a revision row rewritten under its signed output checkpoint", async () => {
    await untilIndexed();
    const n = await revisions();
    await whileStopped(async (db) => {
      await db.query(
        "update vindex_revisions set index_root = decode(repeat('ab', 32), 'hex') where tenant_id = $1 and seq = $2",
        [tenant, n - 1],
      );
    });
    expect((await lookup()).status).toBe(503);
    // The size before the write: read after it, a seal quicker than the read (100 ms apart, under
    // CI's load) would already count the record, and the wait below would never see it grow.
    const size = await logSize();
    expect((await post("vcon_share")).status).toBe(200);
    await until(async () => ((await logSize()) > size ? true : undefined), 30_000);
    expect(await revisions()).toBe(n);
  });
});
