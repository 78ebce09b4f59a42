import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import { migrations } from "../../../src/store/drivers/migrations/index.js";
import {
  FilingsBroken,
  indexFilingsBetween,
  insertIndexFiling,
} from "../../../src/store/ledger/vindex-filings.js";
import { bareTestDb, migrateBefore, testEngine } from "../../helpers/databases.js";

const pos = (b: number) => new Uint8Array(32).fill(b);

describe(`the index's filings (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, close } = await bareTestDb("vindex-filings"));
    await migrate(db);
  });
  afterAll(async () => close?.());

  it("reads back every entry of a range filed over many revisions, in log order", async () => {
    const tenant = randomUUID();
    // More revisions than one page of rows, an empty one among them.
    for (let k = 0; k < 150; k++)
      await insertIndexFiling(db, tenant, {
        from: 2 * k,
        to: 2 * k + 2,
        entries: k === 40 ? [] : [{ position: pos(k % 7), log_index: 2 * k + 1 }],
        salts: k < 7 ? [{ position: pos(k), salt: pos(0x80 + k) }] : [],
      });
    const all = await indexFilingsBetween(db, tenant, 0, 300);
    expect(all).toHaveLength(149);
    expect(all.map((e) => e.log_index)).toEqual(
      Array.from({ length: 150 }, (_, k) => 2 * k + 1).filter((i) => i !== 81),
    );
    expect(all[3]).toEqual({ position: pos(3), log_index: 7, salt: pos(0x83) });
    // From a revision's boundary on, as a process whose memory is behind reads them.
    const later = await indexFilingsBetween(db, tenant, 200, 300);
    expect(later.map((e) => e.log_index)).toEqual(Array.from({ length: 50 }, (_, k) => 201 + 2 * k));
    expect(later.every((e) => e.salt === null)).toBe(true);
    expect(await indexFilingsBetween(db, tenant, 300, 300)).toEqual([]);
  });

  it("refuses rows that do not cover the range end to end", async () => {
    const tenant = randomUUID();
    for (const [from, to] of [
      [0, 5],
      [5, 9],
      [9, 12],
    ] as const)
      await insertIndexFiling(db, tenant, { from, to, entries: [], salts: [] });
    await expect(indexFilingsBetween(db, tenant, 0, 13)).rejects.toThrow(FilingsBroken);
    await expect(indexFilingsBetween(db, tenant, 1, 12)).rejects.toThrow(/run on from entry 1/);
    await db.query("delete from vindex_filings where tenant_id = $1 and log_to = 9", [tenant]);
    await expect(indexFilingsBetween(db, tenant, 0, 12)).rejects.toThrow(/run on from entry 5/);
  });
});

describe(`053-vindex-filings on an index kept a row per entry (${testEngine()})`, () => {
  it("becomes one filing per revision, each salt with its position's first entry, and the old tables go", async () => {
    const { db, close } = await bareTestDb("vindex-filings-migration");
    try {
      await migrateBefore(db, "053");
      const tenant = randomUUID();
      const hex = (b: number) => Buffer.from(pos(b));
      for (const [b, i] of [
        [2, 0],
        [1, 0],
        [1, 3],
        [3, 3],
        [2, 4],
      ] as const)
        await db.query("insert into vindex_entries (tenant_id, position, log_index) values ($1, $2, $3)", [
          tenant,
          hex(b),
          i,
        ]);
      for (const b of [1, 2, 3])
        await db.query("insert into vindex_positions (tenant_id, position, salt) values ($1, $2, $3)", [
          tenant,
          hex(b),
          hex(0x80 + b),
        ]);
      for (const [seq, size] of [
        [0, 2],
        [1, 5],
      ] as const)
        await db.query(
          `insert into vindex_revisions (tenant_id, seq, log_size, log_root, index_root, vrf_key)
           values ($1, $2, $3, '\\x00', '\\x00', '\\x00')`,
          [tenant, seq, size],
        );
      expect(migrations.find((m) => m.id >= "053")?.id).toBe("053-vindex-filings");
      await migrate(db);
      expect(await indexFilingsBetween(db, tenant, 0, 5)).toEqual([
        { position: pos(1), log_index: 0, salt: pos(0x81) },
        { position: pos(2), log_index: 0, salt: pos(0x82) },
        { position: pos(1), log_index: 3, salt: pos(0x81) },
        { position: pos(3), log_index: 3, salt: pos(0x83) },
        { position: pos(2), log_index: 4, salt: pos(0x82) },
      ]);
      const filings = await db.query<{ log_from: string; log_to: string; salts: Uint8Array }>(
        "select log_from, log_to, salts from vindex_filings where tenant_id = $1 order by log_to",
        [tenant],
      );
      expect(filings.map((f) => [Number(f.log_from), Number(f.log_to), f.salts.length])).toEqual([
        [0, 2, 128],
        [2, 5, 64],
      ]);
      const tables = await db.query<{ n: string }>(
        "select count(*) as n from information_schema.tables where table_name in ('vindex_entries', 'vindex_positions')",
      );
      expect(Number(tables[0]?.n)).toBe(0);
    } finally {
      await close();
    }
  });
});
