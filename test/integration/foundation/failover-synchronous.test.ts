import { rmSync } from "node:fs";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type PgReplica, startPgReplica } from "../../../bench/pg-replica.js";
import { loadConfig } from "../../../src/config.js";
import { verifyConsistency as rfc9162VerifyConsistency } from "../../../src/formats/rfc9162/verify.js";
import { SignedStates } from "../../../src/keys/signed-state.js";
import { type RunningService, startService } from "../../../src/server.js";
import { bootstrapDir } from "../../helpers/bootstrap-dir.js";
import { testEngine } from "../../helpers/databases.js";
import { ETCD_URL, etcdMissing, etcdPrefix } from "../../helpers/etcd.js";
import { type PgCluster, startPgCluster } from "../../helpers/pg-cluster.js";
import { until } from "../../helpers/poll.js";

/*
 * Issue 71: a synchronous standby (`synchronous_commit = remote_apply`) named as the service's
 * DATABASE_STANDBY_URL, the log's head in etcd. The primary is lost at once (`pg_ctl stop -m
 * immediate`) after acknowledged writes; the standby is promoted and the service started on it
 * with the same key directory and etcd: every acknowledged record is there, no log is held, and
 * the log goes on (a new record sealed, its checkpoint consistent with the last one signed before)
 * without `archivist keys accept-restore`.
 */
const postgres = testEngine() === "postgres";
const noEtcd = postgres ? await etcdMissing() : undefined;

async function clusters(): Promise<{ primary: PgCluster; standby: PgReplica } | undefined> {
  let primary: PgCluster | undefined;
  try {
    primary = await startPgCluster();
    const standby = await startPgReplica(primary.url());
    const c = new pg.Client({ connectionString: primary.url() });
    await c.connect();
    await c.query("alter system set synchronous_standby_names = '*'");
    await c.query("alter system set synchronous_commit = 'remote_apply'");
    await c.query("select pg_reload_conf()");
    await c.end();
    return { primary, standby };
  } catch (err) {
    await primary?.close();
    if (process.env.CI === "true")
      throw new Error(
        `the synchronous failover test needs a primary and standby in CI: ${(err as Error).message}`,
      );
    console.warn(`synchronous failover test skipped: ${(err as Error).message}`);
    return undefined;
  }
}

if (noEtcd && process.env.CI === "true")
  throw new Error(`the synchronous failover test needs etcd in CI: ${noEtcd}`);
const setup = postgres && !noEtcd ? await clusters() : undefined;
const parts = setup && { ...setup, ...bootstrapDir("archivist-sync-failover-", "Synchronous failover") };

describe.runIf(parts)("a synchronous standby promoted after the primary is lost at once", () => {
  const { primary, standby, dir, tenant, owner, settings } = parts ?? ({} as NonNullable<typeof parts>);
  const services: RunningService[] = [];
  const prefix = etcdPrefix("sync-failover");
  afterAll(async () => {
    for (const s of services) await s.close().catch(() => undefined);
    await standby.close();
    await primary.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (more: Record<string, string>) => {
    const s = await startService(
      loadConfig(
        {},
        settings({
          ARCHIVIST_COMMIT_MAX_DELAY_MS: "50",
          ARCHIVIST_SEAL_INTERVAL_MS: "200",
          ARCHIVIST_SHUTDOWN_TIMEOUT_MS: "2000",
          ARCHIVIST_ETCD_ENDPOINTS: ETCD_URL,
          ARCHIVIST_ETCD_PREFIX: prefix,
          ...more,
        }),
      ),
    );
    services.push(s);
    const res = await fetch(`${s.url}/archivist/iam/v1/appidp/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "client_credentials", ...owner }),
    });
    return { s, token: ((await res.json()) as { access_token: string }).access_token };
  };
  const post = async (s: RunningService, token: string, path: string, body: unknown) => {
    const res = await fetch(`${s.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, identity: ((await res.json()) as { identity?: string }).identity };
  };

  it("keeps every acknowledged record and goes on signing, without accept-restore", async () => {
    const admin = new pg.Client({ connectionString: primary.url() });
    await admin.connect();
    await admin.query("create database archivist");
    await admin.end();
    const standbyUrl = standby.urlOf(primary.url("archivist"));
    const old = await start({ DATABASE_URL: primary.url("archivist"), DATABASE_STANDBY_URL: standbyUrl });
    const asset = await post(old.s, old.token, "/archivist/v2/assets", {
      attributes: { arc_display_type: "sync" },
    });
    expect(asset.status).toBe(200);
    const acked: string[] = [String(asset.identity)];
    for (let i = 0; i < 30; i++) {
      const e = await post(old.s, old.token, `/archivist/v2/${asset.identity}/events`, {
        operation: "Record",
        behaviour: "RecordEvidence",
        event_attributes: { arc_display_type: "sync", n: String(i) },
      });
      expect(e.status).toBe(200);
      acked.push(String(e.identity));
      // Seals happen as the writes go on: some of the log is signed when the primary is lost.
      if (i === 15) await old.s.workers.flush();
    }
    await until(
      async () =>
        ((await new SignedStates(settings({}).ARCHIVIST_KEY_DIR as string).read(tenant))?.tree_size ?? 0) >
          1 || undefined,
      30_000,
    );
    await primary.stopImmediate();
    await old.s.close();
    const signed = await new SignedStates(settings({}).ARCHIVIST_KEY_DIR as string).read(tenant);

    await standby.promote();
    const next = await start({ DATABASE_URL: standbyUrl });
    expect(next.s.ctx.logGuard.heldLogs()).toEqual([]);
    for (const id of acked) {
      const res = await fetch(`${next.s.url}/archivist/v2/${id}`, {
        headers: { authorization: `Bearer ${next.token}` },
      });
      expect(res.status, `${id} was answered 200 before the primary was lost`).toBe(200);
    }
    const after = await post(next.s, next.token, `/archivist/v2/${asset.identity}/events`, {
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: "after failover" },
    });
    expect(after.status).toBe(200);
    const receipt = await until(async () => {
      const r = await fetch(`${next.s.url}/archivist/v1/receipts/${after.identity}`, {
        headers: { authorization: `Bearer ${next.token}` },
      });
      return r.status === 200 || undefined;
    }, 30_000);
    expect(receipt).toBe(true);
    // The new checkpoint extends the last one the old service signed.
    const note = await (
      await fetch(`${next.s.url}/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)
    ).text();
    const [, sizeLine, rootLine] = note.split("\n");
    const size = Number(sizeLine);
    const root = new Uint8Array(Buffer.from(rootLine ?? "", "base64"));
    const from = signed?.tree_size ?? 0;
    expect(size).toBeGreaterThan(from);
    const res = await fetch(
      `${next.s.url}/archivist/v1/merklelogs/${tenant}/consistency?profile=rfc9162&from=${from}&to=${size}`,
    );
    const proof = ((await res.json()) as { proof: string[] }).proof.map(
      (h) => new Uint8Array(Buffer.from(h, "hex")),
    );
    expect(
      rfc9162VerifyConsistency(
        from,
        size,
        new Uint8Array(Buffer.from(signed?.root ?? "", "hex")),
        root,
        proof,
      ),
    ).toBe(true);
  }, 180_000);
});
