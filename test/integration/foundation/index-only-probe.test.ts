import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAttributeQuery } from "../../../src/core/filters/index.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { fewMatches, Where } from "../../../src/store/query/sql.js";
import { addAttributeFilter } from "../../../src/store/records/attribute-sql.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";

const ROWS = 3000;
const subject = (n: number) => `vcon://${n.toString(16).padStart(8, "0")}`;

// A conserver's group look-up: one list request for many vCons' assets, by repeated subject.
describe(`a probe of many values is answered by the index, never a table walk (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, close } = await bareTestDb("index-only-probe"));
    await db.query("create table t (seq bigserial primary key, attributes jsonb not null)");
    await db.query(
      "create index t_attributes on t using gin (attributes jsonb_path_ops) with (fastupdate = off)",
    );
    await db.query(
      `insert into t (attributes) select jsonb_build_object('arc_display_type', 'vcon', 'subject', 'vcon://' || lpad(to_hex(g), 8, '0'))
       from generate_series(1, ${ROWS}) g`,
    );
    await db.query("analyze t");
  });
  afterAll(async () => close?.());

  /** Table walks of `t` so far: this session's statistics, flushed first (one connection). */
  const seqScans = async () => {
    await db.query("select pg_stat_force_next_flush()");
    const [row] = await db.query<{ n: string }>(
      "select coalesce(seq_scan, 0)::text as n from pg_stat_user_tables where relname = 't'",
    );
    return Number(row?.n ?? 0);
  };

  const probe = (subjects: string[]) => {
    const w = new Where();
    const pairs = subjects.map((s): [string, string] => ["attributes.subject", s]);
    for (const f of parseAttributeQuery(pairs, ["attributes"]).filters)
      addAttributeFilter(w, f, "attributes");
    return w;
  };

  it("finds the matches of 60 values through the index", async () => {
    const wanted = [7, 1500, 2999].map(subject);
    const absent = Array.from({ length: 57 }, (_, i) => `vcon://absent-${i}`);
    const w = probe([...absent, ...wanted]);
    expect(w.indexOnly).toBe(true);
    const before = await seqScans();
    const seqs = await fewMatches(db, "t", w, 500);
    expect(await seqScans()).toBe(before);
    expect(seqs?.map(Number).sort((a, b) => a - b)).toEqual([7, 1500, 2999]);
  });

  it("leaves a single value to the planner (a common one may stop a walk early)", async () => {
    const w = probe([subject(42)]);
    expect(w.indexOnly).toBe(false);
    expect(await fewMatches(db, "t", w, 500)).toEqual(["42"]);
  });

  it("still says when there are more matches than the cap", async () => {
    const w = new Where();
    for (const f of parseAttributeQuery(
      [
        ["attributes.arc_display_type", "vcon"],
        ["attributes.arc_display_type", "other"],
      ],
      ["attributes"],
    ).filters)
      addAttributeFilter(w, f, "attributes");
    expect(await fewMatches(db, "t", w, 500)).toBeUndefined();
  });
});
