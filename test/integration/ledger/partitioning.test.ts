import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionCommand } from "../../../src/cli/partition.js";
import { verifyCommand } from "../../../src/cli/verify.js";
import { keysFromKeySet, verifyRecordReceipt } from "../../../src/core/verify/index.js";
import { PARTITIONED_TABLES, partitionLogTables } from "../../../src/store/partitioning.js";
import { runCli } from "../../helpers/cli-output.js";
import { testEngine } from "../../helpers/databases.js";
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
    expect(log.out).toMatch(new RegExp(`^VERIFIED .*: log ${tenant}: \\d+ seals`, "m"));
  }
}

const counts = async () => {
  const out: Record<string, number> = {};
  for (const t of PARTITIONED_TABLES)
    out[t] = (await s.service.ctx.db.query<{ n: number }>(`select count(*)::int as n from ${t}`))[0]?.n ?? 0;
  return out;
};

describe("hash partitions by tenancy for the log's tables (archivist partition)", () => {
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
      const report = await partitionLogTables(s.service.ctx.db, { partitions: 4 });
      expect(report.map((r) => r.outcome)).toEqual(["partitioned", "partitioned", "partitioned"]);
    }
    await streaming;
    for (const t of PARTITIONED_TABLES) {
      const parts = await s.service.ctx.db.query<{ kind: string; n: number }>(
        "select (select relkind::text from pg_class where oid = to_regclass($1)) as kind, (select count(*)::int from pg_inherits where inhparent = to_regclass($1)) as n",
        [t],
      );
      expect(parts[0]).toEqual({ kind: "p", n: 4 });
    }
    // The indexes keep their names, so later migrations naming them find them.
    const pkeys = await s.service.ctx.db.query<{ name: string }>(
      "select indexrelid::regclass::text as name from pg_index where indrelid = any(array[to_regclass('log_entries'), to_regclass('mmr_nodes'), to_regclass('tlog_nodes')]) order by 1",
    );
    expect(pkeys.map((p) => p.name)).toEqual([
      "log_entries_pkey",
      "log_entries_record",
      "mmr_nodes_pkey",
      "tlog_nodes_pkey",
    ]);
    // Nothing lost: every row is still there, and the log grows on from it.
    await append(3);
    await everyLogVerifies();
    const after = await counts();
    for (const t of PARTITIONED_TABLES) expect(after[t]).toBeGreaterThan(before[t] ?? 0);
    // The rows of a tenancy are in one partition, which a statement naming the tenancy reads alone.
    const spread = await s.service.ctx.db.query<{ parts: number }>(
      "select count(distinct tableoid)::int as parts from log_entries group by tenant_id",
    );
    expect(spread.every((r) => r.parts === 1)).toBe(true);
    // Run again: nothing to do.
    const again = await partitionLogTables(s.service.ctx.db, { partitions: 8 });
    expect(again.map((r) => [r.outcome, r.partitions])).toEqual([
      ["already", 4],
      ["already", 4],
      ["already", 4],
    ]);
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
