import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAttributeQuery } from "../../../src/core/filters/index.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { Where } from "../../../src/store/query/sql.js";
import { addAttributeFilter } from "../../../src/store/records/attribute-sql.js";
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

// Attributes with their own btree (KEYED_ATTRIBUTES): the payload hash of template 0.3.0.
const PAYLOADS: Array<{ n: number; a: Record<string, unknown> }> = [
  { n: 1, a: { payload: "aa", other: "x" } },
  { n: 2, a: { payload: "bb" } },
  { n: 3, a: { payload: 7 } },
  { n: 4, a: { payload: "7" } },
  { n: 5, a: { payload: ["aa"] } },
  { n: 6, a: { payload: { aa: "aa" } } },
  { n: 7, a: { payload: null } },
  { n: 8, a: { other: "aa" } },
  // The text of a non-string value must not pass for it.
  { n: 9, a: { payload: ["x"] } },
  { n: 10, a: { payload: 'te"\\d' } },
];
const PAYLOAD_QUERIES: Array<Array<[string, string]>> = [
  [["event_attributes.payload", "aa"]],
  [["event_attributes.payload", "zz"]],
  [["event_attributes.payload", "7"]],
  [["event_attributes.payload", '["x"]']],
  [["event_attributes.payload", "null"]],
  [["event_attributes.payload", 'te"\\d']],
  [
    ["event_attributes.payload", "aa"],
    ["event_attributes.payload", "bb"],
    ["event_attributes.payload", "zz"],
  ],
  [
    ["event_attributes.payload", "aa"],
    ["event_attributes.payload", "7"],
  ],
  [
    ["event_attributes.payload", "aa"],
    ["event_attributes.other", "x"],
  ],
];

describe(`a keyed attribute's own index form (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, close } = await bareTestDb("keyed-attribute-forms"));
    await db.query("create table e (n int primary key, event_attributes jsonb not null)");
    await db.query("create index e_payload on e ((event_attributes ->> 'payload'))");
    for (const r of PAYLOADS)
      await db.query("insert into e values ($1, $2::jsonb)", [r.n, JSON.stringify(r.a)]);
  });
  afterAll(async () => close?.());

  const matches = async (pairs: Array<[string, string]>, indexed: boolean) => {
    const w = new Where();
    for (const f of parseAttributeQuery(pairs, ["event_attributes"]).filters)
      addAttributeFilter(w, f, "event_attributes", indexed);
    const rows = await db.query<{ n: number }>(`select n from e where ${w.sql} order by n`, w.params);
    return { sql: w.sql, rows: rows.map((r) => r.n), indexOnly: w.indexOnly };
  };

  it("matches what containment matches, string values through the payload index", async () => {
    for (const pairs of PAYLOAD_QUERIES) {
      const keyed = await matches(pairs, true);
      const rowwise = await matches(pairs, false);
      expect(keyed.rows, JSON.stringify(pairs)).toEqual(rowwise.rows);
    }
    const one = await matches([["event_attributes.payload", "aa"]], true);
    expect(one).toEqual({ sql: expect.stringContaining("->> 'payload'"), rows: [1], indexOnly: false });
    const several = await matches(PAYLOAD_QUERIES[6] as Array<[string, string]>, true);
    expect(several).toEqual({ sql: expect.not.stringContaining("@@"), rows: [1, 2], indexOnly: true });
    // A whole number also matches the number 7: that stays with the attributes' own form.
    expect((await matches([["event_attributes.payload", "7"]], true)).rows).toEqual([3, 4]);
    expect((await matches([["event_attributes.payload", "7"]], true)).sql).not.toContain("->> 'payload'");
    const plan = await db.transaction(async (tx) => {
      await tx.query("set local enable_seqscan = off");
      const rows = await tx.query<Record<string, string>>(`explain select n from e where ${several.sql}`, [
        ["aa", "bb", "zz"],
      ]);
      return rows.map((r) => Object.values(r)[0]).join("\n");
    });
    expect(plan).toContain("e_payload");
  });
});
