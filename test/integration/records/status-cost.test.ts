import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionCommand } from "../../../src/cli/partition.js";
import type { Db, Queryable, QueryOptions } from "../../../src/store/drivers/db.js";
import { runCli } from "../../helpers/cli-output.js";
import { testEngine } from "../../helpers/databases.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/**
 * Issue 59: a record's status is derived from its log entry and the seal covering it. On a table
 * whose statistics are those a live service has (written through the API, never analysed since),
 * the probe of the log entry by record had become a walk of the tenancy's entries for every row
 * read, so a list whose page held nothing read the whole tenancy once per event. Each read below is
 * made through the API against a tenancy of ~1,000 records and one of ~20,000 in the same
 * database, and the buffers its statements touch (`EXPLAIN (ANALYZE, BUFFERS)` of each statement
 * the service sent for it) are compared: the larger tenancy may cost a few more (a B-tree a level
 * deeper), never in proportion.
 */

const SMALL = Number(process.env.STATUS_COST_SMALL ?? 1_000);
const LARGE = Number(process.env.STATUS_COST_LARGE ?? 20_000);
// Events per asset: the records of a tenancy are its assets and their events.
const EVENTS_PER_ASSET = 9;
// Counts are exact up to the result limit, estimated past twice it: both tenancies are past it,
// so each count costs what the limit lets it read, in both.
const RESULT_LIMIT = 200;

interface Statement {
  sql: string;
  params: readonly unknown[];
  /** The planner settings (`set local`) its transaction made before it. */
  settings: string[];
}

/** Records the statements sent on `db` (and in its transactions) while `on` is set. */
function recordStatements(db: Db): { take<T>(fn: () => Promise<T>): Promise<Statement[]> } {
  let seen: Statement[] | undefined;
  const query = db.query.bind(db);
  const transaction = db.transaction.bind(db);
  const note = (sql: string, params: readonly unknown[] | undefined, settings: string[]) => {
    if (seen && /^\s*(select|with)\b/i.test(sql))
      seen.push({ sql, params: params ?? [], settings: [...settings] });
  };
  // A statement held to an index walk, or kept from table walks, is run by the driver with these settings.
  const walk = ["set local enable_bitmapscan = off", "set local enable_sort = off"];
  const noWalk = ["set local enable_seqscan = off"];
  db.query = (<R>(sql: string, params?: readonly unknown[], opts?: QueryOptions) => {
    note(sql, params, opts?.indexOrder ? walk : opts?.noTableWalk ? noWalk : []);
    return query<R>(sql, params, opts);
  }) as Db["query"];
  db.transaction = (<T>(fn: (tx: Queryable) => Promise<T>) =>
    transaction((tx) => {
      const settings: string[] = [];
      return fn({
        query: <R>(sql: string, params?: readonly unknown[], opts?: QueryOptions) => {
          if (/^\s*set local\b/i.test(sql)) settings.push(sql);
          else note(sql, params, settings);
          return tx.query<R>(sql, params, opts);
        },
      });
    })) as Db["transaction"];
  return {
    async take(fn) {
      seen = [];
      try {
        await fn();
        return seen;
      } finally {
        seen = undefined;
      }
    },
  };
}

interface PlanNode {
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
}

/** The shared buffers one statement touches when run now (its plan's, children included). */
async function buffersOf(db: Db, s: Statement): Promise<number> {
  const rows = await db.transaction(async (tx) => {
    for (const set of s.settings) await tx.query(set);
    return tx.query<Record<string, unknown>>(`explain (analyze, buffers, format json) ${s.sql}`, s.params);
  });
  const raw = Object.values(rows[0] ?? {})[0];
  const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
  const top = plan[0]?.Plan;
  return (top?.["Shared Hit Blocks"] ?? 0) + (top?.["Shared Read Blocks"] ?? 0);
}

/** Writes `records` records (assets and their events) through the API, a hundred assets a request. */
async function writeRecords(s: TestService, token: string, records: number, tag: string): Promise<string[]> {
  const perAsset = EVENTS_PER_ASSET + 1;
  const assets = Math.ceil(records / perAsset);
  const identities: string[] = [];
  for (let first = 0; first < assets; first += 100) {
    const requests = Array.from({ length: Math.min(100, assets - first) }, (_, i) => ({
      behaviours: ["RecordEvidence"],
      attributes: {
        arc_display_type: "vcon",
        arc_display_name: `${tag}-${first + i}`,
        subject: `vcon://${tag}-${first + i}`,
      },
      events: Array.from({ length: EVENTS_PER_ASSET }, (_, e) => ({
        operation: "Record",
        behaviour: "RecordEvidence",
        event_attributes: {
          arc_display_type: "vcon_create",
          vcon_operation: `op-${e}`,
          vcon: `${tag}-${first + i}`,
        },
      })),
    }));
    const res = await s.api("/archivist/v2/assets:batchWithEvents", {
      method: "POST",
      token,
      headers: { prefer: "return=minimal" },
      json: { requests },
    });
    if (res.status !== 200) throw new Error(`batch: ${res.status} ${await res.text()}`);
    const { responses } = (await res.json()) as { responses: Array<{ asset?: { identity: string } }> };
    for (const r of responses) {
      if (!r.asset) throw new Error(`an item was refused: ${JSON.stringify(r)}`);
      identities.push(r.asset.identity);
    }
  }
  return identities;
}

/** Waits until every record written is in the log and a seal covers the whole log, anchored. */
async function settle(db: Db): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const [row] = await db.query<{ waiting: number; unsealed: number; unanchored: number }>(
      `select (select count(*) from asset_event_queue)::int as waiting,
              (select count(*) from logs l where l.mmr_size > coalesce((select max(mmr_size) from seals s where s.tenant_id = l.tenant_id), 0))::int as unsealed,
              (select count(*) from seals where anchored_block is null or not witnessed)::int as unanchored`,
    );
    if (row?.waiting === 0 && row.unsealed === 0 && row.unanchored === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the records were not committed and sealed in time");
}

/** Each kind of list, count and status filter, as a path of the tenancy's first asset. */
function reads(asset: string, vcon: string): Record<string, { path: string; count?: boolean }> {
  const events = "/archivist/v2/assets/-/events";
  return {
    "events, first page": { path: `${events}?page_size=5` },
    "events, counted": { path: `${events}?page_size=5`, count: true },
    "events STORED (none), counted": {
      path: `${events}?page_size=5&confirmation_status=STORED`,
      count: true,
    },
    "events COMMITTED, counted": { path: `${events}?page_size=5&confirmation_status=COMMITTED`, count: true },
    "events CONFIRMED": { path: `${events}?page_size=5&confirmation_status=CONFIRMED` },
    "events PENDING or STORED": {
      path: `${events}?page_size=5&confirmation_status=PENDING&confirmation_status=STORED`,
    },
    "events of an asset": { path: `/archivist/v2/${asset}/events?page_size=5` },
    "events of an asset, CONFIRMED": {
      path: `/archivist/v2/${asset}/events?page_size=5&confirmation_status=CONFIRMED`,
    },
    "an event's asset's events, counted": { path: `/archivist/v2/${asset}/events?page_size=2`, count: true },
    // A conserver's look-up of one vCon's events (a list by an attribute value that matches a
    // few, whatever the tenancy's size; a value matching a share of the tenancy costs its matches).
    "events of a vCon, by attribute": { path: `${events}?page_size=5&event_attributes.vcon=${vcon}` },
    "assets, first page": { path: "/archivist/v2/assets?page_size=5" },
    "assets, counted": { path: "/archivist/v2/assets?page_size=5", count: true },
    "assets PENDING (none), counted": {
      path: "/archivist/v2/assets?page_size=5&confirmation_status=PENDING",
      count: true,
    },
    "assets CONFIRMED": { path: "/archivist/v2/assets?page_size=5&confirmation_status=CONFIRMED" },
    "an asset": { path: `/archivist/v2/${asset}` },
    summaries: { path: "/archivist/v2/assets/-/summaries?page_size=5" },
  };
}

async function measure(
  s: TestService,
  rec: ReturnType<typeof recordStatements>,
  token: string,
  asset: string,
  vcon: string,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, r] of Object.entries(reads(asset, vcon))) {
    const headers: Record<string, string> = r.count ? { "x-request-total-count": "true" } : {};
    const statements = await rec.take(async () => {
      const res = await s.api(r.path, { token, headers });
      if (res.status !== 200 && res.status !== 206)
        throw new Error(`${name}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    });
    if (statements.length === 0) throw new Error(`${name}: no statement was recorded`);
    let blocks = 0;
    for (const st of statements) {
      const b = await buffersOf(s.service.ctx.db, st);
      // STATUS_COST_DEBUG=1 prints the plan of each statement that read more than a thousand.
      if (process.env.STATUS_COST_DEBUG && b > 1000) {
        const rows = await s.service.ctx.db.transaction(async (tx) => {
          for (const set of st.settings) await tx.query(set);
          return tx.query<Record<string, unknown>>(`explain (analyze, buffers) ${st.sql}`, st.params);
        });
        console.log(
          name,
          b,
          st.sql,
          JSON.stringify(st.params),
          rows.map((r) => Object.values(r)[0]).join("\n"),
        );
      }
      blocks += b;
    }
    out[name] = blocks;
  }
  return out;
}

for (const partitioned of [false, true]) {
  describe(`a record's status costs its page, not its tenancy (${testEngine()}${partitioned ? ", partitioned" : ""})`, () => {
    let s: TestService;
    let small: Record<string, number>;
    let large: Record<string, number>;
    beforeAll(async () => {
      // Never analysed, on PGlite too, whose service analyses what grew (store/drivers/statistics.ts): the
      // plans must hold without statistics.
      s = await startTestService({
        ARCHIVIST_RESULT_LIMIT: String(RESULT_LIMIT),
        ARCHIVIST_STATISTICS_INTERVAL_MS: "0",
      });
      // `archivist partition` as an operator runs it, on the stopped service's database; it
      // analyses the tables it moves, done while they are empty, so the statistics after it are a
      // live service's again once the records are written.
      if (partitioned)
        await s.restart(async () => {
          const where =
            testEngine() === "postgres"
              ? ["--database-url", String(s.service.ctx.config.databaseUrl)]
              : ["--data-dir", s.dataDir];
          const run = await runCli((a) => partitionCommand.run(a), [...where, "--partitions", "4"]);
          if (run.code !== 0) throw new Error(`archivist partition: ${run.err}`);
        });
      const db = s.service.ctx.db;
      if (db.kind === "postgres") {
        // A live table between autovacuum's visits: nothing analyses it while the test writes
        // (PGlite runs no autovacuum).
        const tables = await db.query<{ name: string }>(
          "select relname::text as name from pg_class where relkind = 'r' and relnamespace = 'public'::regnamespace",
        );
        for (const t of tables) await db.query(`alter table ${t.name} set (autovacuum_enabled = off)`);
      }
      const [ta, tb] = [await s.token(s.a), await s.token(s.b)];
      const smallAssets = await writeRecords(s, ta, SMALL, "small");
      const largeAssets = await writeRecords(s, tb, LARGE, "large");
      await settle(db);
      // Nothing the workers do between two reads is counted against either.
      await s.service.workers.stop();
      const rec = recordStatements(db);
      small = await measure(s, rec, ta, smallAssets[0] ?? "", "small-7");
      large = await measure(s, rec, tb, largeAssets[0] ?? "", "large-7");
      console.log(
        Object.keys(small)
          .map((k) => `${k.padEnd(40)} ${String(small[k]).padStart(7)} ${String(large[k]).padStart(7)}`)
          .join("\n"),
      );
    }, 600_000);
    afterAll(() => s?.stop());

    it("reads each list, count and status filter of the larger tenancy for a few buffers more, never in proportion", () => {
      const grown = Object.keys(small).filter((k) => (large[k] ?? 0) > 2 * (small[k] ?? 0) + 64);
      expect(grown, JSON.stringify({ small, large })).toEqual([]);
    });
  });
}
