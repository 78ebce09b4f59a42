import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionCommand } from "../../../src/cli/partition.js";
import { verifyCommand } from "../../../src/cli/verify.js";
import { PARTITIONED_TABLES, partitionByTenancy } from "../../../src/store/archive/partitioning.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { runCli } from "../../helpers/cli-output.js";
import { bareTestDb, migrateBefore, testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { evidence, postEvent } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";

type Event = Record<string, unknown> & {
  identity: string;
  confirmation_status: string;
  tenant_identity: string;
};

let s: TestService;
const dir = mkdtempSync(join(tmpdir(), "archivist-partition-"));
const tokens: string[] = [];
const events: Event[] = [];
beforeAll(async () => {
  s = await startTestService();
  tokens.push(await s.token(s.a), await s.token(s.b));
});
afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Appends `n` events to a new asset of each tenancy, as records stream in. */
async function append(n: number): Promise<void> {
  for (const token of tokens) {
    const asset = (await (
      await s.api("/archivist/v2/assets", { method: "POST", token, json: { attributes: { k: "v" } } })
    ).json()) as { identity: string };
    for (let i = 0; i < n; i++) {
      const res = await postEvent(s, token, asset.identity, evidence({ n: String(i) }));
      expect(res.status).toBe(200);
      events.push({ ...((await res.json()) as Event), token } as Event);
    }
  }
}

/** Every event sealed, its receipt verifying; every log's seals replayed by `archivist verify --log`. */
async function everyLogVerifies(): Promise<void> {
  const keysBytes = new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer());
  writeFileSync(join(dir, "keys.cbor"), keysBytes);
  const keys = keysFromKeySet(keysBytes);
  for (const e of events) {
    const token = e.token as string;
    const sealed = await until(async () => {
      const r = (await (await s.api(`/archivist/v2/${e.identity}`, { token })).json()) as Event;
      return ["CONFIRMED", "UNEQUIVOCAL"].includes(r.confirmation_status) ? r : undefined;
    });
    const [, a, , id] = e.identity.split("/");
    const res = await s.api(`/archivist/v1/receipts/assets/${a}/events/${id}`, { token });
    expect(res.status).toBe(200);
    const verdict = verifyRecordReceipt(sealed, new Uint8Array(await res.arrayBuffer()), keys);
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ ok: true });
  }
  for (const tenant of new Set(events.map((e) => e.tenant_identity))) {
    const log = await runCli(
      (a) => verifyCommand.run(a),
      ["--log", tenant, "--url", s.url, "--keys", join(dir, "keys.cbor")],
    );
    expect(log, log.out).toMatchObject({ code: 0 });
    expect(log.out).toMatch(new RegExp(`^VERIFIED .*: log ${tenant}: \\d+ seal\\(s\\)`, "m"));
  }
}

const LOG_TABLES = ["log_entries", "mmr_nodes", "tlog_nodes"] as const;

const counts = async () => {
  const out: Record<string, number> = {};
  for (const t of LOG_TABLES)
    out[t] = (await s.service.ctx.db.query<{ n: number }>(`select count(*)::int as n from ${t}`))[0]?.n ?? 0;
  return out;
};

/** Each table's kind (`p`: partitioned) and number of partitions. */
const shapes = async (db: Db) =>
  db.query<{ table: string; kind: string; n: number }>(
    `select t as table, (select relkind::text from pg_class where oid = to_regclass(t)) as kind,
       (select count(*)::int from pg_inherits where inhparent = to_regclass(t)) as n
     from unnest($1::text[]) t`,
    [PARTITIONED_TABLES],
  );

describe("hash partitions by tenancy for the record and log tables (archivist partition)", () => {
  it("partitions a database in use with data in it, and every log replays after it", async () => {
    await append(8);
    await everyLogVerifies();
    const before = await counts();
    expect(before.log_entries).toBeGreaterThan(0);
    // Records keep streaming in while the tables are rewritten: writers wait for the swap.
    const streaming = append(4);
    if (testEngine() === "postgres") {
      const run = await runCli(
        (a) => partitionCommand.run(a),
        ["--database-url", String(s.service.ctx.config.databaseUrl), "--partitions", "4"],
      );
      expect(run, run.err).toMatchObject({ code: 0 });
      for (const t of PARTITIONED_TABLES)
        expect(run.out).toMatch(new RegExp(`^${t}: partitioned, 4 partitions, \\d+ rows$`, "m"));
    } else {
      // PGlite is one process's: the command opens DATA_DIR itself, so here the service's own
      // handle does what the command does with the service stopped.
      const report = await partitionByTenancy(s.service.ctx.db, { partitions: 4 });
      expect(report.map((r) => r.outcome)).toEqual(PARTITIONED_TABLES.map(() => "partitioned"));
    }
    await streaming;
    expect(await shapes(s.service.ctx.db)).toEqual(
      PARTITIONED_TABLES.map((table) => ({ table, kind: "p", n: 4 })),
    );
    // The indexes keep their names, so later migrations naming them find them.
    const pkeys = await s.service.ctx.db.query<{ name: string }>(
      "select indexrelid::regclass::text as name from pg_index where indrelid = any(array[to_regclass('log_entries'), to_regclass('mmr_nodes'), to_regclass('tlog_nodes')]) order by 1",
    );
    expect(pkeys.map((p) => p.name)).toEqual([
      "log_entries_pkey",
      "log_entries_record_tenant",
      "mmr_nodes_pkey",
      "tlog_nodes_pkey",
    ]);
    // Nothing lost: every row is still there, and the log grows on from it.
    await append(3);
    await everyLogVerifies();
    const after = await counts();
    for (const t of LOG_TABLES) expect(after[t]).toBeGreaterThan(before[t] ?? 0);
    // The rows of a tenancy are in one partition, which a statement naming the tenancy reads alone.
    const spread = await s.service.ctx.db.query<{ parts: number }>(
      "select count(distinct tableoid)::int as parts from log_entries group by tenant_id",
    );
    expect(spread.every((r) => r.parts === 1)).toBe(true);
    // Run again: nothing to do.
    const again = await partitionByTenancy(s.service.ctx.db, { partitions: 8 });
    expect(again.map((r) => [r.outcome, r.partitions])).toEqual(PARTITIONED_TABLES.map(() => ["already", 4]));
  });

  it("partitions the record tables of a stopped service's database: every answer is the same after, and the logs replay", async () => {
    // A fixed base URL: statements name it as their issuer, and a restart binds a new port.
    const r = await startTestService({ BASE_URL: "http://archivist.test" });
    try {
      const owners = [await r.token(r.a), await r.token(r.b)];
      const made: Array<{
        token: string;
        assets: string[];
        events: string[];
        free: string[];
        blobs: string[];
      }> = [];
      const json = async (res: Response) => {
        expect(res.status, await res.clone().text()).toBe(200);
        return (await res.json()) as { identity: string };
      };
      /** One tenancy's records: two assets with events, asset-free events (statements among them), a blob. */
      const records = async (token: string, tag: string) => {
        const mine = {
          token,
          assets: [] as string[],
          events: [] as string[],
          free: [] as string[],
          blobs: [] as string[],
        };
        for (const k of ["one", "two"]) {
          const asset = await json(
            await r.api("/archivist/v2/assets", { method: "POST", token, json: { attributes: { k, tag } } }),
          );
          mine.assets.push(asset.identity);
          for (let i = 0; i < 3; i++) {
            const ev = await json(
              await r.api(`/archivist/v2/${asset.identity}/events`, {
                method: "POST",
                token,
                json: {
                  operation: "Record",
                  behaviour: "RecordEvidence",
                  event_attributes: { n: String(i), k },
                },
              }),
            );
            mine.events.push(ev.identity);
          }
        }
        for (let i = 0; i < 3; i++) {
          const ev = await json(
            await r.api("/archivist/v1/events", {
              method: "POST",
              token,
              json: {
                attributes: { subject: `vcon://${tag}`, n: String(i) },
                trails: [`vcon://${tag}`, "shared"],
              },
            }),
          );
          mine.free.push(ev.identity);
        }
        const form = new FormData();
        form.append("file", new Blob([new TextEncoder().encode(`bytes of ${tag}`)]), "f");
        mine.blobs.push(
          (await json(await r.api("/archivist/v1/blobs", { method: "POST", token, body: form }))).identity,
        );
        made.push(mine);
      };
      await records(owners[0] as string, "a");
      await records(owners[1] as string, "b");
      const keys = async () =>
        keysFromKeySet(new Uint8Array(await (await r.api("/.well-known/scitt-keys")).arrayBuffer()));

      /** Every list, get, filter, count and receipt verdict of both tenancies, as the API answers them. */
      const snapshot = async () => {
        const k = await keys();
        const out: Record<string, unknown> = {};
        for (const [i, m] of made.entries()) {
          const get = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
            const res = await r.api(path, { ...init, token: m.token });
            const type = res.headers.get("content-type") ?? "";
            out[`${i} ${init.method ?? "GET"} ${path} ${JSON.stringify(init.json ?? "")}`] = {
              status: res.status,
              count: res.headers.get("x-total-count"),
              // An asset's `at_time` is the time of the read.
              body: type.includes("json")
                ? JSON.parse(await res.text(), (key, v) => (key === "at_time" ? undefined : v))
                : Buffer.from(await res.arrayBuffer()).toString("base64"),
            };
          };
          for (const q of ["", "?attributes.k=one", "?page_size=1", "?confirmation_status=UNEQUIVOCAL"])
            await get(`/archivist/v2/assets${q}`);
          await get("/archivist/v2/assets/-/summaries");
          for (const q of ["", "?event_attributes.n=1", "?page_size=2"])
            await get(`/archivist/v2/assets/-/events${q}`);
          for (const a of m.assets) {
            await get(`/archivist/v2/${a}`);
            await get(`/archivist/v2/${a}/events`);
          }
          for (const e of m.events) await get(`/archivist/v2/${e}`);
          for (const e of m.free) await get(`/archivist/v1/${e}`);
          for (const body of [
            {},
            { filter: "trails/any(t: t eq 'shared') and attributes/n ne '1'" },
            { top: 1, skip: 1 },
          ])
            await get("/archivist/v1/events/search", { method: "POST", json: body });
          for (const tag of ["a", "b"])
            await get(`/archivist/v1/statements?subject=${encodeURIComponent(`vcon://${tag}`)}`);
          for (const b of m.blobs) {
            await get(`/archivist/v1/${b}`);
            await get(`/archivist/v1/${b}/info`);
          }
          // A receipt is signed afresh when asked: its verdict on the record is what must not change.
          for (const id of [...m.events, ...m.free]) {
            const rec = (await (
              await r.api(`/archivist/${id.startsWith("events/") ? "v1" : "v2"}/${id}`, { token: m.token })
            ).json()) as Event;
            const res = await r.api(`/archivist/v1/receipts/events/${id.split("/").at(-1)}`, {
              token: m.token,
            });
            out[`${i} receipt ${id}`] = verifyRecordReceipt(rec, new Uint8Array(await res.arrayBuffer()), k);
          }
        }
        return out;
      };
      /** The answers once the workers have nothing left to do: two in a row, a flush apart, the same. */
      const settled = () =>
        until(async () => {
          await r.service.workers.flush();
          const first = await snapshot();
          await r.service.workers.flush();
          const second = await snapshot();
          return JSON.stringify(first) === JSON.stringify(second) ? second : undefined;
        }, 60_000);
      const before = await settled();
      const verdicts = Object.entries(before).filter(([key]) => key.includes(" receipt "));
      expect(verdicts.length).toBe(2 * (6 + 3));
      for (const [key, v] of verdicts) expect(v, key).toMatchObject({ ok: true });

      await r.restart(async () => {
        const args =
          testEngine() === "postgres"
            ? ["--database-url", String(r.service.ctx.config.databaseUrl)]
            : ["--data-dir", r.dataDir];
        const run = await runCli((a) => partitionCommand.run(a), [...args, "--partitions", "3"]);
        expect(run, run.err).toMatchObject({ code: 0 });
        for (const t of PARTITIONED_TABLES)
          expect(run.out).toMatch(new RegExp(`^${t}: partitioned, 3 partitions, [1-9]\\d* rows$`, "m"));
      });
      owners.splice(0, 2, await r.token(r.a), await r.token(r.b));
      for (const [i, m] of made.entries()) m.token = owners[i] as string;
      const db = r.service.ctx.db;
      expect(await shapes(db)).toEqual(PARTITIONED_TABLES.map((table) => ({ table, kind: "p", n: 3 })));
      const after = await settled();
      expect(after).toEqual(before);

      // The keys that hold now: each unique key ends with the tenancy, and serves look-ups by id or seq alone.
      const keyDefs = await db.query<{ def: string }>(
        "select pg_get_indexdef(indexrelid) as def from pg_index where indrelid = any(array[to_regclass('assets'), to_regclass('asset_events'), to_regclass('events'), to_regclass('blobs')]) and indisunique order by 1",
      );
      expect(keyDefs.map((k) => k.def.replace(/ ON (ONLY )?(public\.)?/, " ON "))).toEqual([
        "CREATE UNIQUE INDEX asset_events_pkey ON asset_events USING btree (id, tenant_id)",
        "CREATE UNIQUE INDEX asset_events_seq_key ON asset_events USING btree (seq, tenant_id)",
        "CREATE UNIQUE INDEX assets_pkey ON assets USING btree (id, tenant_id)",
        "CREATE UNIQUE INDEX assets_seq_key ON assets USING btree (seq, tenant_id)",
        "CREATE UNIQUE INDEX blobs_pkey ON blobs USING btree (id, tenant_id)",
        "CREATE UNIQUE INDEX blobs_seq_key ON blobs USING btree (seq, tenant_id)",
        "CREATE UNIQUE INDEX events_pkey ON events USING btree (id, tenant_id)",
        "CREATE UNIQUE INDEX events_seq_key ON events USING btree (seq, tenant_id)",
      ]);
      const constraints = await db.query<{ name: string; type: string }>(
        "select conname::text as name, contype::text as type from pg_constraint where conrelid = to_regclass('asset_events') and contype in ('p', 'u') order by 1",
      );
      expect(constraints).toEqual([
        { name: "asset_events_pkey", type: "p" },
        { name: "asset_events_seq_key", type: "u" },
      ]);
      // A statement naming the tenancy reads one partition of each table.
      const tenant = (await db.query<{ id: string }>("select tenant_id as id from asset_events limit 1"))[0]
        ?.id;
      for (const t of ["assets", "asset_events", "events", "blobs"]) {
        const plan = await db.query<Record<string, string>>(
          `explain (costs off) select * from ${t} where tenant_id = '${tenant}' order by seq desc limit 5`,
        );
        const scanned = plan
          .map((row) => Object.values(row)[0])
          .join("\n")
          .match(new RegExp(`\\b${t}_p\\d\\b`, "g"));
        expect(new Set(scanned).size, plan.map((row) => Object.values(row)[0]).join("\n")).toBe(1);
      }

      // New records are taken and committed on the partitioned tables, numbered on from the old.
      const seqs = async () =>
        (await db.query<{ n: string }>("select max(seq)::text as n from asset_events"))[0]?.n ?? "0";
      const lastSeq = BigInt(await seqs());
      await records(owners[0] as string, "a2");
      await records(owners[1] as string, "b2");
      expect(BigInt(await seqs())).toBeGreaterThan(lastSeq);
      const grown = await settled();
      for (const [key, v] of Object.entries(grown))
        if (key.includes(" receipt ")) expect(v, key).toMatchObject({ ok: true });
      // Every log replays from its first entry: `archivist verify --log` against the service.
      writeFileSync(
        join(dir, "keys-r.cbor"),
        new Uint8Array(await (await r.api("/.well-known/scitt-keys")).arrayBuffer()),
      );
      const tenants = await db.query<{ id: string }>(
        "select distinct tenant_id::text as id from log_entries",
      );
      expect(tenants.length).toBe(2);
      for (const { id } of tenants) {
        const log = await runCli(
          (a) => verifyCommand.run(a),
          ["--log", `tenant/${id}`, "--url", r.url, "--keys", join(dir, "keys-r.cbor")],
        );
        expect(log, log.out).toMatchObject({ code: 0 });
        expect(log.out).toMatch(new RegExp(`^VERIFIED .*: log tenant/${id}: \\d+ seal\\(s\\)`, "m"));
      }
      // Run again: nothing to do.
      const again = await partitionByTenancy(db, { partitions: 5 });
      expect(again.map((x) => [x.table, x.outcome, x.partitions])).toEqual(
        PARTITIONED_TABLES.map((t) => [t, "already", 3]),
      );
    } finally {
      await r.stop();
    }
  });

  it("refuses a table a foreign key references, which would need the tenancy in its key, and changes nothing", async () => {
    const bare = await bareTestDb("partition-refs");
    try {
      await migrateBefore(bare.db, "~");
      await bare.db.query("create table asset_notes (asset_id uuid references assets(id))");
      await expect(partitionByTenancy(bare.db, { partitions: 2 })).rejects.toThrow(
        /^assets is referenced by foreign keys \(asset_notes_asset_id_fkey\)/,
      );
      expect((await shapes(bare.db)).filter((t) => t.kind === "p")).toEqual([]);
    } finally {
      await bare.close();
    }
  });

  it.runIf(testEngine() === "pglite")(
    "runs as a command on an embedded database whose service is stopped, once",
    async () => {
      const dataDir = join(dir, "stopped");
      const cli = (args: string[]) =>
        runCli((a) => partitionCommand.run(a), ["--data-dir", dataDir, ...args]);
      const first = await cli(["--partitions", "2"]);
      expect(first, first.err).toMatchObject({ code: 0 });
      expect(first.out).toBe(
        PARTITIONED_TABLES.map((t) => `${t}: partitioned, 2 partitions, 0 rows\n`).join(""),
      );
      const again = await cli([]);
      expect(again.out).toBe(
        PARTITIONED_TABLES.map((t) => `${t}: already partitioned, 2 partitions, 0 rows\n`).join(""),
      );
      expect(await cli(["--partitions", "1"])).toMatchObject({ code: 64 });
    },
  );
});
