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
    expect((await matches([["attributes.j", "7"]], false)).rows).toEqual([1, 2]);
    expect((await matches([["attributes.k", "x"]], true)).sql).toContain("@>");
  });
});
