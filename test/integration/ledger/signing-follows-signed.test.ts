import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Ctx } from "../../../src/context.js";
import { consistencyProofIndices } from "../../../src/core/log/mmr-proof.js";
import * as treeProof from "../../../src/core/log/tree-proof.js";
import { inclusionProofIndices, leafCount, peakIndices } from "../../../src/formats/mmr/index.js";
import { receiptFor } from "../../../src/services/ledger/proofs.js";
import { receiptsOfRecords } from "../../../src/services/ledger/receipts-in-bulk.js";
import { tlogProofFor } from "../../../src/services/ledger/tlog-proof.js";
import type { Db, Queryable } from "../../../src/store/drivers/db.js";
import { openPostgres } from "../../../src/store/drivers/postgres.js";
import { entryOfRecord } from "../../../src/store/ledger/ledger.js";
import { getSeal } from "../../../src/store/ledger/seals.js";
import { latestCheckpoint } from "../../../src/store/ledger/tlog-checkpoints.js";
import { primaryReads, type Reads } from "../../../src/store/replication/replica-reads.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { closeLogPeriod } from "../../../src/workers/log-period.js";
import { loadSealKeys } from "../../../src/workers/seal-keys.js";
import { sealLog } from "../../../src/workers/seal-log.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { newAsset, postVconEvent } from "../../helpers/vcon-event.js";

/*
 * Issue 60: whoever can write to the live database (no key) must not make the service sign for
 * a record it did not log. Each kind of row a signature is computed from is altered in turn, and
 * every signing path that reads it refuses (503, logged, counted in /metrics); the paths that do
 * not read it go on signing what they signed before. Undone, every path signs again.
 */
const METRICS = "metrics-token";
let s: TestService;
let token: string;
let ctx: Ctx;
let tenant: string;
let asset: string;
/** Sealed and checkpointed records; `pending`: committed after the last seal. */
let sealed: string[] = [];
let record: string;

beforeAll(async () => {
  // Seals only when the test asks (workers.flush, or a path below): the committer runs as ever.
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "3600000", ARCHIVIST_METRICS_TOKEN: METRICS });
  token = await s.token(s.a);
  ctx = s.service.ctx;
  asset = await newAsset(s, token);
  for (let i = 0; i < 6; i++)
    sealed.push((await postVconEvent(s, token, asset, randomUUID(), "vcon_create", "2026-11-01")).identity);
  sealed = sealed.map((id) => id.split("/").pop() as string);
  record = sealed[3] as string;
  tenant = (await until(() => entryOfRecord(ctx.db, record)))?.tenant_id as string;
  await until(async () => {
    await s.service.workers.flush();
    const seal = await getSeal(ctx.db, tenant);
    const cp = await latestCheckpoint(ctx.db, tenant);
    const entries = await Promise.all(sealed.map((id) => entryOfRecord(ctx.db, id)));
    return seal &&
      cp &&
      cp.size === leafCount(seal.mmr_size) &&
      entries.every((e) => e && e.mmr_index < seal.mmr_size)
      ? true
      : undefined;
  });
  // Period 0 closed honestly, so period 1's row and link entry exist to be altered.
  const keys = await loadSealKeys(ctx);
  await ctx.logGuard.signing(tenant, () =>
    ctx.db.transaction((tx) => closeLogPeriod(tx, tenant, keys, ctx.logGuard)),
  );
  // Committed, not sealed: what the seal and period-close paths would sign next.
  const pending = (await postVconEvent(s, token, asset, randomUUID(), "vcon_create", "2026-11-02")).identity;
  await until(() => entryOfRecord(ctx.db, pending.split("/").pop() as string));
}, 120_000);
afterAll(() => s?.stop());

/** A fresh process's view: nothing signed before is answered from memory. */
function forget(): void {
  ctx.caches.receipts.clear();
  ctx.caches.entries.clear();
  ctx.caches.latestSeals.clear();
}

type Path =
  | "receipt"
  | "receipt_rfc9162"
  | "bulk"
  | "bulk_rfc9162"
  | "statement"
  | "tlog_proof"
  | "seal"
  | "period_close";

const ALL: Path[] = [
  "receipt",
  "receipt_rfc9162",
  "bulk",
  "bulk_rfc9162",
  "statement",
  "tlog_proof",
  "seal",
  "period_close",
];

/** Runs a signing path; `refused` when it refused as the service refuses (503), else what it signed. */
async function run(path: Path): Promise<"refused" | "signed"> {
  forget();
  const sign = async (): Promise<unknown> => {
    switch (path) {
      case "receipt":
        return receiptFor(ctx, record, "mmr");
      case "receipt_rfc9162":
        return receiptFor(ctx, record, "rfc9162");
      case "bulk":
      case "bulk_rfc9162": {
        const made = await receiptsOfRecords(ctx, sealed, path === "bulk" ? "mmr" : "rfc9162");
        expect(made.size).toBe(sealed.length);
        return made;
      }
      case "statement": {
        // The statement alone (signed with the tenancy's issuer key) and with its receipt: both
        // are refused, or neither.
        const plain = await s.api(`/archivist/v2/${asset}/events/${record}/statement`, { token });
        const r = await s.api(`/archivist/v2/${asset}/events/${record}/statement?transparent=true`, {
          token,
        });
        expect(plain.status, await plain.clone().text()).toBe(r.status === 503 ? 503 : 200);
        if (r.status === 503) throw Object.assign(new Error(await r.text()), { kind: "unavailable" });
        expect(r.status, await r.clone().text()).toBe(200);
        return r;
      }
      case "tlog_proof":
        return tlogProofFor(ctx, record, `events/${record}`);
      case "seal":
      case "period_close": {
        const keys = await loadSealKeys(ctx);
        // Run and rolled back: the next check starts from the same database.
        const undone = new Error("rolled back");
        try {
          await ctx.logGuard.signing(tenant, () =>
            ctx.db.transaction(async (tx) => {
              const done =
                path === "seal"
                  ? await sealLog(tx, tenant, keys.seal, keys.checkpoint, ctx.logGuard)
                  : await closeLogPeriod(tx, tenant, keys, ctx.logGuard);
              expect(done).toBeDefined();
              throw undone;
            }),
          );
        } catch (err) {
          if (err !== undone) throw err;
        }
        return undefined;
      }
    }
  };
  try {
    await sign();
    return "signed";
  } catch (err) {
    if ((err as { kind?: string }).kind === "unavailable") return "refused";
    throw err;
  }
}

async function runAll(): Promise<Record<Path, "refused" | "signed">> {
  const out = {} as Record<Path, "refused" | "signed">;
  for (const p of ALL) out[p] = await run(p);
  return out;
}

const expectRefused = (got: Record<Path, string>, refused: Path[]) =>
  expect(got).toEqual(Object.fromEntries(ALL.map((p) => [p, refused.includes(p) ? "refused" : "signed"])));

/** Alters one row with `change` (sql, params), runs every path, then puts the row back. */
async function whileAltered(
  read: { sql: string; params: unknown[] },
  change: (old: Record<string, unknown>) => { sql: string; params: unknown[] },
  restore: (old: Record<string, unknown>) => { sql: string; params: unknown[] },
  on: Queryable = ctx.db,
): Promise<Record<Path, "refused" | "signed">> {
  const [old] = await on.query<Record<string, unknown>>(read.sql, read.params);
  expect(old).toBeDefined();
  const c = change(old as Record<string, unknown>);
  await on.query(c.sql, c.params);
  try {
    return await runAll();
  } finally {
    const r = restore(old as Record<string, unknown>);
    await on.query(r.sql, r.params);
    await ctx.logGuard.recheck(ctx.db);
  }
}

const flipped = (b: unknown, at = 0) => {
  const x = Buffer.from(b as Uint8Array);
  x[at] = (x[at] as number) ^ 1;
  return x;
};

/** The record's row rewritten as the attack does: its revocation made a grant. */
const recordRewritten = (on: Queryable = ctx.db) =>
  whileAltered(
    { sql: "select event_attributes from asset_events where id = $1", params: [record] },
    () => ({
      sql: `update asset_events set event_attributes = event_attributes || '{"vcon_operation": "vcon_consent_accepted.analysis"}'::jsonb where id = $1`,
      params: [record],
    }),
    (old) => ({
      sql: "update asset_events set event_attributes = $2::jsonb where id = $1",
      params: [record, JSON.stringify(old.event_attributes)],
    }),
    on,
  );

/** The record's logged leaf with one bit flipped. */
const leafRewritten = (on: Queryable = ctx.db) =>
  whileAltered(
    { sql: "select leaf from log_entries where record_id = $1", params: [record] },
    (old) => ({
      sql: "update log_entries set leaf = $2 where record_id = $1",
      params: [record, flipped(old.leaf)],
    }),
    (old) => ({
      sql: "update log_entries set leaf = $2 where record_id = $1",
      params: [record, Buffer.from(old.leaf as Uint8Array)],
    }),
    on,
  );

/** The seal at `mmrSize` with its signature's last byte flipped. */
const sealRewritten = (mmrSize: number, on: Queryable = ctx.db) =>
  whileAltered(
    { sql: "select seal from seals where tenant_id = $1 and mmr_size = $2", params: [tenant, mmrSize] },
    (old) => ({
      sql: "update seals set seal = $3 where tenant_id = $1 and mmr_size = $2",
      params: [tenant, mmrSize, flipped(old.seal, (old.seal as Uint8Array).length - 1)],
    }),
    (old) => ({
      sql: "update seals set seal = $3 where tenant_id = $1 and mmr_size = $2",
      params: [tenant, mmrSize, Buffer.from(old.seal as Uint8Array)],
    }),
    on,
  );

/** The checkpoint of `size` with a forged root, in its note and its column alike. */
const checkpointRewritten = (size: number, on: Queryable = ctx.db) => {
  const forged = Buffer.alloc(32, 7).toString("base64");
  return whileAltered(
    {
      sql: "select note, root from tlog_checkpoints where tenant_id = $1 and size = $2",
      params: [tenant, size],
    },
    (old) => {
      const lines = String(old.note).split("\n");
      lines[2] = forged;
      return {
        sql: "update tlog_checkpoints set note = $3, root = $4 where tenant_id = $1 and size = $2",
        params: [tenant, size, lines.join("\n"), Buffer.from(forged, "base64")],
      };
    },
    (old) => ({
      sql: "update tlog_checkpoints set note = $3, root = $4 where tenant_id = $1 and size = $2",
      params: [tenant, size, old.note, Buffer.from(old.root as Uint8Array)],
    }),
    on,
  );
};

/** One MMR node rewritten. */
const mmrNode = (idx: number, on: Queryable = ctx.db) =>
  whileAltered(
    { sql: "select hash from mmr_nodes where tenant_id = $1 and idx = $2", params: [tenant, idx] },
    (old) => ({
      sql: "update mmr_nodes set hash = $3 where tenant_id = $1 and idx = $2",
      params: [tenant, idx, flipped(old.hash)],
    }),
    (old) => ({
      sql: "update mmr_nodes set hash = $3 where tenant_id = $1 and idx = $2",
      params: [tenant, idx, Buffer.from(old.hash as Uint8Array)],
    }),
    on,
  );

/** One RFC 9162 tree node rewritten. */
const treeNode = (level: number, idx: number, on: Queryable = ctx.db) =>
  whileAltered(
    {
      sql: "select hash from tlog_nodes where tenant_id = $1 and level = $2 and idx = $3",
      params: [tenant, level, idx],
    },
    (old) => ({
      sql: "update tlog_nodes set hash = $4 where tenant_id = $1 and level = $2 and idx = $3",
      params: [tenant, level, idx, flipped(old.hash)],
    }),
    (old) => ({
      sql: "update tlog_nodes set hash = $4 where tenant_id = $1 and level = $2 and idx = $3",
      params: [tenant, level, idx, Buffer.from(old.hash as Uint8Array)],
    }),
    on,
  );

describe(`a writer of the live database cannot make the service sign (${process.env.TEST_DB ?? "pglite"})`, () => {
  it("an honest database: every path signs, and the receipt verifies", async () => {
    expectRefused(await runAll(), []);
    const keySet = new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer());
    const r = await s.api(`/archivist/v1/receipts/events/${record}`, { token });
    expect(r.status).toBe(200);
    const event = await (await s.api(`/archivist/v2/${asset}/events/${record}`, { token })).json();
    const checked = verifyRecordReceipt(event, new Uint8Array(await r.arrayBuffer()), keysFromKeySet(keySet));
    expect(checked.ok, JSON.stringify(checked)).toBe(true);
  });

  it("a rewritten leaf: no receipt of the record's MMR inclusion (the issue's attack), over HTTP a 503 that /metrics counts", async () => {
    const got = await leafRewritten();
    // The record's row no longer gives the leaf logged for it: no receipt of either profile.
    expectRefused(got, ["receipt", "receipt_rfc9162", "bulk", "bulk_rfc9162", "statement", "tlog_proof"]);
    // And as a caller sees it, with the leaf rewritten again.
    await ctx.db.query("update log_entries set leaf = $2 where record_id = $1", [
      record,
      flipped((await entryOfRecord(ctx.db, record))?.leaf),
    ]);
    try {
      forget();
      const r = await s.api(`/archivist/v1/receipts/events/${record}`, { token });
      expect(r.status).toBe(503);
      const body = (await r.json()) as { message: string };
      expect(body.message).toMatch(/refusing to sign/);
      const metrics = await (
        await s.api("/metrics", { headers: { authorization: `Bearer ${METRICS}` } })
      ).text();
      expect(
        Number(/archivist_signing_refused_total\{what="receipt"\} (\d+)/.exec(metrics)?.[1]),
      ).toBeGreaterThan(0);
    } finally {
      await ctx.db.query("update log_entries set leaf = $2 where record_id = $1", [
        record,
        flipped((await entryOfRecord(ctx.db, record))?.leaf),
      ]);
    }
  });

  it("a rewritten MMR node: on the record's path, no receipt; under the sealed peaks, no seal", async () => {
    const entry = await entryOfRecord(ctx.db, record);
    const seal = await getSeal(ctx.db, tenant);
    if (!entry || !seal) throw new Error("not sealed");
    const [sibling] = inclusionProofIndices(seal.mmr_size, entry.mmr_index);
    expectRefused(await mmrNode(sibling as number), ["receipt", "bulk", "statement"]);
    // A node the next seal's consistency proof reads, in the part the last seal covers.
    const size = Number(
      (
        await ctx.db.query<{ mmr_size: number }>("select mmr_size from logs where tenant_id = $1", [tenant])
      )[0]?.mmr_size,
    );
    const read = [...peakIndices(size), ...consistencyProofIndices(seal.mmr_size, size).flat()].filter(
      (i) => i < seal.mmr_size,
    );
    const got = await mmrNode(read[0] as number);
    expect(got.seal).toBe("refused");
    expect(got.period_close).toBe("refused");
  });

  it("a rewritten RFC 9162 tree node: on the record's path, no receipt or tlog-proof; under the checkpoint, no checkpoint", async () => {
    const entry = await entryOfRecord(ctx.db, record);
    const cp = await latestCheckpoint(ctx.db, tenant);
    if (!entry || !cp) throw new Error("not checkpointed");
    // The leaf's neighbour, on its path (the leaf itself is recomputed from the record's row).
    expectRefused(await treeNode(0, entry.leaf_index ^ 1), ["receipt_rfc9162", "bulk_rfc9162", "tlog_proof"]);
    const size = Number(
      (
        await ctx.db.query<{ tree_size: number }>("select tree_size from logs where tenant_id = $1", [tenant])
      )[0]?.tree_size,
    );
    // A node the next checkpoint's root or consistency proof reads, in the part the last one covers.
    const old = [...treeProof.consistencyProofNodes(cp.size, size), ...treeProof.rootNodes(size)].filter(
      (c) => (c.idx + 1) * 2 ** c.level <= cp.size,
    );
    const node = old[0];
    if (!node) throw new Error("no stored node under the checkpoint in the proof");
    const got = await treeNode(node.level, node.idx);
    expect(got.seal).toBe("refused");
    expect(got.period_close).toBe("refused");
  });

  it("a rewritten record: no receipt or tlog-proof for the record the service would serve", async () => {
    const got = await recordRewritten();
    expectRefused(got, ["receipt", "receipt_rfc9162", "bulk", "bulk_rfc9162", "statement", "tlog_proof"]);
  });

  it("a rewritten seal: no receipt over it, no seal after it", async () => {
    const seal = await getSeal(ctx.db, tenant);
    if (!seal) throw new Error("not sealed");
    const got = await sealRewritten(seal.mmr_size);
    expectRefused(got, ["receipt", "bulk", "statement", "seal", "period_close"]);
  });

  it("a rewritten checkpoint: no receipt or tlog-proof over it, no checkpoint after it", async () => {
    const cp = await latestCheckpoint(ctx.db, tenant);
    if (!cp) throw new Error("not checkpointed");
    const got = await checkpointRewritten(cp.size);
    expectRefused(got, ["receipt_rfc9162", "bulk_rfc9162", "tlog_proof", "seal", "period_close"]);
  });

  it("a rewritten period row: no period close", async () => {
    const got = await whileAltered(
      { sql: "select start_size from log_periods where tenant_id = $1 and period = 1", params: [tenant] },
      (old) => ({
        sql: "update log_periods set start_size = $2 where tenant_id = $1 and period = 1",
        params: [tenant, Number(old.start_size) - 1],
      }),
      (old) => ({
        sql: "update log_periods set start_size = $2 where tenant_id = $1 and period = 1",
        params: [tenant, Number(old.start_size)],
      }),
    );
    expectRefused(got, ["period_close"]);
  });

  it("every period row deleted: no period close (the key directory knows period 1 was opened)", async () => {
    // Without its rows the log reads as period 0 from entry 0, never closed: a close would sign
    // a second link entry for period 1, over the one the signed log holds.
    const saved = `saved_periods_${randomUUID().replaceAll("-", "")}`;
    await ctx.db.query(`create table ${saved} as select * from log_periods where tenant_id = $1`, [tenant]);
    await ctx.db.query("delete from log_periods where tenant_id = $1", [tenant]);
    try {
      expectRefused(await runAll(), ["period_close"]);
    } finally {
      await ctx.db.query(`insert into log_periods select * from ${saved}`);
      await ctx.db.query(`drop table ${saved}`);
    }
  });

  it("undone: every path signs again", async () => {
    expectRefused(await runAll(), []);
  });

  it("any byte of any row under what was signed, altered: every receipt is refused or verifies for the record as logged", async () => {
    const seal = await getSeal(ctx.db, tenant);
    const cp = await latestCheckpoint(ctx.db, tenant);
    if (!seal || !cp) throw new Error("not sealed");
    const keys = keysFromKeySet(new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()));
    const records = new Map<string, Record<string, unknown>>();
    for (const id of sealed)
      records.set(
        id,
        (await (await s.api(`/archivist/v2/${asset}/events/${id}`, { token })).json()) as Record<
          string,
          unknown
        >,
      );
    const honestProof = await tlogProofFor(ctx, record, `events/${record}`);
    // Rows every signature so far was computed from: the sealed entries' leaves, the nodes
    // under the seal and the checkpoint, the seal and the checkpoint themselves.
    const rows: Array<{ table: string; key: string; params: unknown[]; column: string }> = [
      ...sealed.map((id) => ({ table: "log_entries", key: "record_id = $1", params: [id], column: "leaf" })),
      ...Array.from({ length: seal.mmr_size }, (_, i) => ({
        table: "mmr_nodes",
        key: "tenant_id = $1 and idx = $2",
        params: [tenant, i],
        column: "hash",
      })),
      ...(
        await ctx.db.query<{ level: number; idx: number }>(
          "select level, idx from tlog_nodes where tenant_id = $1",
          [tenant],
        )
      )
        .filter((n) => (Number(n.idx) + 1) * 2 ** Number(n.level) <= cp.size)
        .map((n) => ({
          table: "tlog_nodes",
          key: "tenant_id = $1 and level = $2 and idx = $3",
          params: [tenant, Number(n.level), Number(n.idx)],
          column: "hash",
        })),
      {
        table: "seals",
        key: "tenant_id = $1 and mmr_size = $2",
        params: [tenant, seal.mmr_size],
        column: "seal",
      },
      {
        table: "tlog_checkpoints",
        key: "tenant_id = $1 and size = $2",
        params: [tenant, cp.size],
        column: "note",
      },
    ];
    const refusedOrTrue = async (p: Promise<unknown>, check: (v: never) => void) => {
      try {
        check((await p) as never);
      } catch (err) {
        if ((err as { kind?: string }).kind !== "unavailable") throw err;
      }
    };
    const verifies = (id: string, receipt: Uint8Array) => {
      const v = verifyRecordReceipt(records.get(id) as never, receipt, keys);
      expect(v.ok, `${id}: ${JSON.stringify(v)}`).toBe(true);
    };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: rows.length - 1 }),
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        fc.constantFrom(...sealed),
        async (which, at, bit, id) => {
          const row = rows[which] as (typeof rows)[number];
          const where = `from ${row.table} where ${row.key}`;
          const [old] = await ctx.db.query<Record<string, unknown>>(
            `select ${row.column} as v ${where}`,
            row.params,
          );
          const before = old?.v;
          const bytes = typeof before === "string" ? Buffer.from(before) : Buffer.from(before as Uint8Array);
          const altered = Buffer.from(bytes);
          const k = at % altered.length;
          altered[k] = (altered[k] as number) ^ (1 << bit);
          const value = typeof before === "string" ? altered.toString() : altered;
          const set = `update ${row.table} set ${row.column} = $${row.params.length + 1} where ${row.key}`;
          await ctx.db.query(set, [...row.params, value]);
          try {
            forget();
            await refusedOrTrue(receiptFor(ctx, id, "mmr"), (r: Uint8Array) => verifies(id, r));
            forget();
            await refusedOrTrue(receiptFor(ctx, id, "rfc9162"), (r: Uint8Array) => verifies(id, r));
            for (const profile of ["mmr", "rfc9162"] as const) {
              forget();
              await refusedOrTrue(
                receiptsOfRecords(ctx, sealed, profile),
                (m: Map<string, { receipt: Uint8Array }>) => {
                  for (const [rid, r] of m) verifies(rid, r.receipt);
                },
              );
            }
            await refusedOrTrue(tlogProofFor(ctx, record, `events/${record}`), (p: string) =>
              expect(p).toBe(honestProof),
            );
          } finally {
            await ctx.db.query(set, [...row.params, typeof before === "string" ? before : bytes]);
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});

/*
 * The same rows altered on the read database (DATABASE_READ_URL) instead. A real streaming
 * standby cannot be written: whoever could write to it has promoted it, and a promoted standby is
 * refused as a read source (read-url-not-standby.test.ts, replica-promoted.test.ts). Here the
 * standby check is passed by a test seam: the service's `ctx.reads` is replaced by reads on a
 * copy of its database (pg_dump into another database), as if a standby's rows differed from the
 * primary's. Whatever the read source holds, the paths that read it (receipts of both profiles,
 * single and bulk, statement receipts, tlog-proofs) refuse a row altered under what was signed;
 * the seal and the period close read only the primary, and sign as before.
 */
const READ_PATHS: Path[] = ["receipt", "receipt_rfc9162", "bulk", "bulk_rfc9162", "statement", "tlog_proof"];
const postgres = testEngine() === "postgres";
if (!postgres)
  console.info("signing-follows-signed: the read database's part needs PostgreSQL (DATABASE_READ_URL)");

describe.runIf(postgres)(
  "a writer of the read database cannot make the service sign (test seam: ctx.reads on a copy)",
  () => {
    let copy: { url: string; drop(): Promise<void> } | undefined;
    let copyDb: Db | undefined;
    let own: Reads;
    const on = () => copyDb as Db;
    beforeAll(async () => {
      copy = await freshPostgresDatabase();
      execFileSync(
        "sh",
        ["-c", `pg_dump --no-owner "${ctx.config.databaseUrl}" | psql -q -v ON_ERROR_STOP=1 "${copy.url}"`],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      copyDb = await openPostgres(copy.url, 4);
      own = ctx.reads;
      (ctx as { reads: Reads }).reads = primaryReads(copyDb);
    }, 60_000);
    afterAll(async () => {
      if (own) (ctx as { reads: Reads }).reads = own;
      await copyDb?.close();
      await copy?.drop();
    });

    it("an unaltered copy: every path signs", async () => {
      expectRefused(await runAll(), []);
    });

    it("a rewritten leaf on the read database: no receipt or tlog-proof", async () => {
      const got = await leafRewritten(on());
      expectRefused(got, READ_PATHS);
    });

    it("a rewritten record on the read database (the issue's revocation made a grant): no receipt or tlog-proof", async () => {
      const got = await recordRewritten(on());
      expectRefused(got, READ_PATHS);
    });

    it("rewritten nodes on the read database: no receipt of the profile whose path reads them", async () => {
      const entry = await entryOfRecord(ctx.db, record);
      const seal = await getSeal(ctx.db, tenant);
      if (!entry || !seal) throw new Error("not sealed");
      const [sibling] = inclusionProofIndices(seal.mmr_size, entry.mmr_index);
      expectRefused(await mmrNode(sibling as number, on()), ["receipt", "bulk", "statement"]);
      expectRefused(await treeNode(0, entry.leaf_index ^ 1, on()), [
        "receipt_rfc9162",
        "bulk_rfc9162",
        "tlog_proof",
      ]);
    });

    it("a rewritten seal or checkpoint on the read database: no receipt over it", async () => {
      const seal = await getSeal(ctx.db, tenant);
      const cp = await latestCheckpoint(ctx.db, tenant);
      if (!seal || !cp) throw new Error("not sealed");
      const sealGot = await sealRewritten(seal.mmr_size, on());
      expectRefused(sealGot, ["receipt", "bulk", "statement"]);
      const cpGot = await checkpointRewritten(cp.size, on());
      expectRefused(cpGot, ["receipt_rfc9162", "bulk_rfc9162", "tlog_proof"]);
    });

    it("period rows deleted on the read database: nothing reads them to sign, every path signs", async () => {
      const before = await on().query("select * from log_periods where tenant_id = $1", [tenant]);
      expect(before.length).toBeGreaterThan(0);
      await on().query("delete from log_periods where tenant_id = $1", [tenant]);
      expectRefused(await runAll(), []);
    });
  },
);
