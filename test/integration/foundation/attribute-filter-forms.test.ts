import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAttributeQuery } from "../../../src/core/filters/index.js";
import { addAttributeFilter } from "../../../src/store/attribute-sql.js";
import type { Db } from "../../../src/store/db.js";
import { Where } from "../../../src/store/sql.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";

const ROWS = [
  { n: 1, a: { k: "x", j: "7" } },
  { n: 2, a: { k: "y", j: 7 } },
  { n: 3, a: { k: "x" } },
  { n: 4, a: { other: "x" } },
  // Values containment does not match a string against: the jsonpath form must not either.
  { n: 5, a: { k: ["x", "y"], j: [7] } },
  { n: 6, a: { k: { x: "y" }, j: { "7": 7 } } },
  { n: 7, a: { k: null, j: true } },
  { n: 8, a: { k: "", j: 7.0 } },
  { n: 9, a: { 'q"u\\o': 'te"\\d', k: "é☃", j: "07" } },
];

const QUERIES: Array<Array<[string, string]>> = [
  [["attributes.k", "x"]],
  [["attributes.j", "7"]],
  [
    ["attributes.k", "x"],
    ["attributes.j", "7"],
  ],
  [["attributes.k", "x,y"]],
  [["attributes.k", "*"]],
  [["attributes.k", "z"]],
  // A key given several values (repeated): one jsonpath test where the index serves it.
  [
    ["attributes.k", "x"],
    ["attributes.k", "y"],
  ],
  [
    ["attributes.k", "y"],
    ["attributes.k", "é☃"],
    ["attributes.k", "z"],
  ],
  [
    ["attributes.j", "7"],
    ["attributes.j", "07"],
  ],
  [
    ["attributes.j", "true"],
    ["attributes.j", "null"],
  ],
  [
    ['attributes.q"u\\o', 'te"\\d'],
    ['attributes.q"u\\o', "x"],
  ],
  [
    ["attributes.k", "x"],
    ["attributes.k", "y"],
    ["attributes.j", "7"],
    ["attributes.j", "8"],
  ],
];

describe(`attribute filters written for an index and for rows already found (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, close } = await bareTestDb("attribute-filter-forms"));
    await db.query("create table t (n int primary key, attributes jsonb not null)");
    await db.query("create index t_attributes on t using gin (attributes jsonb_path_ops)");
    for (const r of ROWS) await db.query("insert into t values ($1, $2::jsonb)", [r.n, JSON.stringify(r.a)]);
  });
  afterAll(async () => close?.());

  const matches = async (pairs: Array<[string, string]>, indexed: boolean) => {
    const w = new Where();
    for (const f of parseAttributeQuery(pairs, ["attributes"]).filters)
      addAttributeFilter(w, f, "attributes", indexed);
    const rows = await db.query<{ n: number }>(`select n from t where ${w.sql} order by n`, w.params);
    return { sql: w.sql, rows: rows.map((r) => r.n) };
  };

  it("match the same rows either way; only the indexed form is a containment operator", async () => {
    for (const pairs of QUERIES) {
      const indexed = await matches(pairs, true);
      const rowwise = await matches(pairs, false);
      expect(rowwise.rows, JSON.stringify(pairs)).toEqual(indexed.rows);
      expect(rowwise.sql).not.toContain("@>");
    }
    expect((await matches([["attributes.k", "x"]], true)).rows).toEqual([1, 3]);
    expect((await matches([["attributes.j", "7"]], false)).rows).toEqual([1, 2, 8]);
    expect((await matches([["attributes.k", "x"]], true)).sql).toContain("@>");
    const several = await matches(
      [
        ["attributes.k", "x"],
        ["attributes.k", "é☃"],
      ],
      true,
    );
    expect(several).toEqual({ sql: expect.stringContaining("@@"), rows: [1, 3, 9] });
    expect((await matches(QUERIES[8] as Array<[string, string]>, true)).rows).toEqual([1, 2, 8, 9]);
  });

  it("answer a key given several values with one scan of the attribute index", async () => {
    const w = new Where();
    const pairs: Array<[string, string]> = ["a", "b", "c", "d"].map((v) => ["attributes.k", v]);
    for (const f of parseAttributeQuery(pairs, ["attributes"]).filters)
      addAttributeFilter(w, f, "attributes");
    // Told to avoid walking the table, the planner shows which indexes can serve the filter.
    const plan = await db.transaction(async (tx) => {
      await tx.query("set local enable_seqscan = off");
      const rows = await tx.query<Record<string, string>>(`explain select n from t where ${w.sql}`, w.params);
      return rows.map((r) => Object.values(r)[0]).join("\n");
    });
    expect(plan.match(/Bitmap Index Scan on t_attributes/g)).toHaveLength(1);
  });
});
