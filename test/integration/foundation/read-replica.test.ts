import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PgReplica, startPgReplica } from "../../../bench/pg-replica.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { freshPostgresDatabase, POSTGRES_ADMIN_URL, testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { evidence, postEvent } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/** The replica, or undefined (a skip) outside CI when this machine cannot start one. */
async function replicaOrSkip(): Promise<PgReplica | undefined> {
  try {
    return await startPgReplica(POSTGRES_ADMIN_URL);
  } catch (err) {
    if (process.env.CI === "true")
      throw new Error(`the read-replica tests need a streaming replica in CI: ${(err as Error).message}`);
    console.warn(`read-replica tests skipped: ${(err as Error).message}`);
    return undefined;
  }
}

const replica = testEngine() === "postgres" ? await replicaOrSkip() : undefined;

type Event = Record<string, unknown> & { identity: string; confirmation_status: string };

// A real hot standby of the local PostgreSQL, streaming on loopback, behind DATABASE_READ_URL.
describe.runIf(replica)("reads from a streaming replica (DATABASE_READ_URL)", () => {
  let s: TestService;
  let token: string;
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let asset: string;
  const served = () => ({ ...s.service.ctx.reads.served });

  beforeAll(async () => {
    db = await freshPostgresDatabase();
    s = await startTestService({
      DATABASE_URL: db.url,
      DATABASE_READ_URL: (replica as PgReplica).urlOf(db.url),
      ARCHIVIST_READ_WAIT_MS: "100",
      ARCHIVIST_METRICS_TOKEN: "metrics-token",
    });
    token = await s.token(s.a);
    const res = await s.api("/archivist/v2/assets", {
      method: "POST",
      token,
      json: { attributes: { arc_display_type: "replicated" }, public: false },
    });
    asset = ((await res.json()) as { identity: string }).identity;
  });
  afterAll(async () => {
    await s?.stop();
    await replica?.close();
    await db?.drop();
  });

  const addEvent = async (n: number): Promise<Event> => {
    const res = await postEvent(s, token, asset, evidence({ n: String(n) }));
    expect(res.status).toBe(200);
    return (await res.json()) as Event;
  };
  const listed = async (): Promise<string[]> => {
    const res = await s.api(`/archivist/v2/${asset}/events?page_size=100`, { token });
    expect(res.status).toBe(200);
    return ((await res.json()) as { events: Event[] }).events.map((e) => e.identity);
  };
  const confirmed = (e: Event) =>
    until(async () => {
      const r = (await (await s.api(`/archivist/v2/${e.identity}`, { token })).json()) as Event;
      return ["CONFIRMED", "UNEQUIVOCAL"].includes(r.confirmation_status) ? r : undefined;
    });
  const receipt = async (e: Event) => {
    const [, assetId, , eventId] = e.identity.split("/");
    return s.api(`/archivist/v1/receipts/assets/${assetId}/events/${eventId}`, { token });
  };
  const verifies = async (e: Event) => {
    const keys = keysFromKeySet(new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()));
    const res = await receipt(e);
    expect(res.status).toBe(200);
    const verdict = verifyRecordReceipt(e, new Uint8Array(await res.arrayBuffer()), keys);
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ ok: true });
  };

  it("serves lists and receipts from the replica once it has replayed the primary's commits", async () => {
    const e = await addEvent(0);
    const sealed = await confirmed(e);
    const before = served();
    // Streaming on loopback catches up within milliseconds, but the primary is shared with other
    // suites' writes: a read that finds the replica behind by more than the wait goes to the
    // primary, so the replica's share is looked for over a few rounds, every answer complete.
    await until(async () => {
      expect(await listed()).toContain(e.identity);
      await verifies(sealed);
      return served().replica > before.replica || undefined;
    });
    // An operator sees the replica's share in /metrics.
    const metrics = await (
      await s.api("/metrics", { headers: { authorization: "Bearer metrics-token" } })
    ).text();
    const replicaReads = Number(
      /^archivist_replica_reads_total\{served_by="replica"\} (\d+)$/m.exec(metrics)?.[1],
    );
    expect(replicaReads).toBeGreaterThan(0);
  });

  it("while the replica lags, answers as the primary would: no event or receipt missing", async () => {
    await (replica as PgReplica).pause();
    try {
      const before = served();
      const e = await addEvent(1);
      // Accepted on the primary a moment ago; the paused replica has not replayed it.
      expect(await listed()).toContain(e.identity);
      const sealed = await confirmed(e);
      await verifies(sealed);
      const tiles = await s.api(
        `/archivist/v1/merklelogs/${String(sealed.tenant_identity).replace("tenant/", "")}/tlog/checkpoint`,
      );
      expect(tiles.status).toBe(200);
      const after = served();
      expect(after.primary).toBeGreaterThan(before.primary);
      // Nothing new was read on the replica: it was behind every read since the pause.
      expect(after.replica).toBe(before.replica);
    } finally {
      await (replica as PgReplica).resume();
    }
    // Caught up again, it serves once more, with the events it missed.
    const before = served();
    const all = await s.service.ctx.db.query("select id from asset_events");
    await until(
      async () => ((await listed()).length === all.length && served().replica > before.replica) || undefined,
    );
  });

  it("while the replica is down, the primary serves; once back, the replica serves again", async () => {
    await (replica as PgReplica).stop();
    try {
      const e = await addEvent(2);
      expect(await listed()).toContain(e.identity);
      await verifies(await confirmed(e));
      const down = served();
      const all = await s.service.ctx.db.query("select id from asset_events");
      expect(await listed()).toHaveLength(all.length);
      expect(served().replica).toBe(down.replica);
    } finally {
      await (replica as PgReplica).start();
    }
    const before = served();
    // A replica that failed is left alone for two seconds, then tried again.
    const all = await s.service.ctx.db.query("select id from asset_events");
    await until(
      async () => ((await listed()).length === all.length && served().replica > before.replica) || undefined,
      15_000,
    );
  });
});
