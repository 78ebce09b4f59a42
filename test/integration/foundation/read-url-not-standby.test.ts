import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { type RunningService, startService } from "../../../src/server.js";
import { bootstrapDir } from "../../helpers/bootstrap-dir.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";

// Issue 60: DATABASE_READ_URL naming a restored copy of the database (no replication) was
// trusted: a copy is not in recovery, its replay position is null, and null was read as "has
// every commit", so lists, checkpoints and receipts came from the copy's rows. A read URL is used
// only when it is in recovery with the primary's system identifier; the copy serves nothing.
const postgres = testEngine() === "postgres";
const METRICS = "metrics-token";
if (!postgres)
  console.info(
    "read-url-not-standby: skipped on PGlite, which has no read URL (DATABASE_READ_URL needs PostgreSQL)",
  );

describe.runIf(postgres)("a read or standby URL that is not a standby of the primary", () => {
  const { dir, tenant, owner, settings } = bootstrapDir("archivist-readcopy-", "Copied");
  const dbs: Array<{ url: string; drop(): Promise<void> }> = [];
  let running: RunningService | undefined;
  afterAll(async () => {
    await running?.close();
    for (const d of dbs) await d.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (more: Record<string, string>) => {
    running = await startService(loadConfig({}, settings({ ARCHIVIST_METRICS_TOKEN: METRICS, ...more })));
    const res = await fetch(`${running.url}/archivist/iam/v1/appidp/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "client_credentials", ...owner }),
    });
    return { s: running, token: ((await res.json()) as { access_token: string }).access_token };
  };
  const call = async (s: RunningService, token: string, path: string, body?: unknown) => {
    const res = await fetch(`${s.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };
  const checkpointSize = async (s: RunningService) =>
    Number(
      (await (await fetch(`${s.url}/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text()).split(
        "\n",
      )[1],
    );
  const sealedAt = (s: RunningService, size: number) =>
    until(async () => {
      await s.workers.flush();
      return (await checkpointSize(s)) === size || undefined;
    });
  /** `archivist_standby_refused_total` by `what`, as /metrics shows it. */
  const standbyRefused = async (s: RunningService): Promise<Record<string, number>> => {
    const text = await (
      await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } })
    ).text();
    return Object.fromEntries(
      [...text.matchAll(/^archivist_standby_refused_total\{what="(\w+)"\} (\d+)$/gm)].map((m) => [
        m[1] as string,
        Number(m[2]),
      ]),
    );
  };
  const event = (n: number) => ({
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: { arc_display_type: `step ${n}` },
  });

  it("is refused: the primary serves every read, the copy's older log is never answered", async () => {
    const primary = await freshPostgresDatabase();
    dbs.push(primary);
    const first = await start({ DATABASE_URL: primary.url });
    const asset = await call(first.s, first.token, "/archivist/v2/assets", {
      attributes: { arc_display_type: "copied" },
    });
    const assetPath = String(asset.identity);
    await call(first.s, first.token, `/archivist/v2/${assetPath}/events`, event(1));
    // The asset's creation event and the one above.
    await sealedAt(first.s, 2);
    await first.s.close();
    running = undefined;

    // A restored copy, as an operator might point the read URL at by mistake.
    const copy = await freshPostgresDatabase();
    dbs.push(copy);
    execFileSync(
      "sh",
      ["-c", `pg_dump --no-owner "${primary.url}" | psql -q -v ON_ERROR_STOP=1 "${copy.url}"`],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );

    const { s, token } = await start({ DATABASE_URL: primary.url, DATABASE_READ_URL: copy.url });
    const e = await call(s, token, `/archivist/v2/${assetPath}/events`, event(2));
    await sealedAt(s, 3);
    // The list, the checkpoint and the proof are the primary's: the copy holds 2 entries and 2 events.
    const listed = (await call(s, token, `/archivist/v2/${assetPath}/events?page_size=100`)) as {
      events: Array<{ identity: string }>;
    };
    expect(listed.events.map((x) => x.identity)).toContain(e.identity);
    expect(await checkpointSize(s)).toBe(3);
    const [, assetId, , eventId] = String(e.identity).split("/");
    const receipt = await fetch(`${s.url}/archivist/v1/receipts/assets/${assetId}/events/${eventId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(receipt.status).toBe(200);
    expect(s.ctx.reads.served.replica).toBe(0);
    expect(s.ctx.reads.served.primary).toBeGreaterThan(0);
    // The operator sees the refusal in /metrics, as well as in the log.
    expect(await standbyRefused(s)).toMatchObject({ read_url: expect.any(Number), write: 0, standby_url: 0 });
    expect((await standbyRefused(s)).read_url).toBeGreaterThan(0);
  });

  it("as DATABASE_STANDBY_URL, acknowledges no write and signs nothing, and says so", async () => {
    await running?.close();
    running = undefined;
    // A directory of its own: the key directory above holds the first log's signed state.
    const other = bootstrapDir("archivist-notstandby-", "Not standing by");
    const primary = await freshPostgresDatabase();
    const notStandby = await freshPostgresDatabase();
    dbs.push(primary, notStandby);
    running = await startService(
      loadConfig(
        {},
        other.settings({
          DATABASE_URL: primary.url,
          DATABASE_STANDBY_URL: notStandby.url,
          ARCHIVIST_STANDBY_WAIT_MS: "200",
          ARCHIVIST_METRICS_TOKEN: METRICS,
        }),
      ),
    );
    const s = running;
    // The token endpoint stores nothing: it does not wait for the standby.
    const tokenRes = await fetch(`${s.url}/archivist/iam/v1/appidp/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "client_credentials", ...other.owner }),
    });
    expect(tokenRes.status).toBe(200);
    const token = ((await tokenRes.json()) as { access_token: string }).access_token;
    const res = await fetch(`${s.url}/archivist/v2/assets`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ attributes: { arc_display_type: "unacknowledged" } }),
    });
    // Stored on the primary, named as not on the standby: 503 NOT_ON_STANDBY, never 200.
    expect(res.status).toBe(503);
    const body = (await res.json()) as { message: string; details: Array<{ reason?: string }> };
    expect(body.details[0]?.reason).toBe("NOT_ON_STANDBY");
    expect(body.message).toMatch(/standby has not applied it/);
    // Committed, but no seal or checkpoint: the standby's log cannot be read from a non-standby.
    await s.workers.flush();
    const committed = await s.ctx.db.query<{ mmr_size: string }>(
      "select mmr_size from logs where tenant_id = $1",
      [other.tenant],
    );
    expect(Number(committed[0]?.mmr_size)).toBeGreaterThan(0);
    expect(await s.ctx.db.query("select 1 from seals where tenant_id = $1", [other.tenant])).toEqual([]);
    // Counted for the operator: the write answered 503, the standby URL refused.
    const refused = await standbyRefused(s);
    expect(refused.write).toBeGreaterThanOrEqual(1);
    expect(refused.standby_url).toBeGreaterThanOrEqual(1);
    expect(refused.read_url).toBe(0);
    await s.close();
    running = undefined;
    rmSync(other.dir, { recursive: true, force: true });
  });
});
