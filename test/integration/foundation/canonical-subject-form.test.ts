import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAttributeQuery } from "../../../src/core/filters/index.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { canonicalSubject } from "../../../src/store/drivers/migrations/050-canonical-subject.js";
import { Where } from "../../../src/store/query/sql.js";
import { addAttributeFilter } from "../../../src/store/records/attribute-sql.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";

const U = "0190a8b4-7c2e-7d4a-9b1c-2f3e4d5c6b7a";
const MIXED = "0190A8b4-7C2e-7d4a-9b1c-2f3e4d5c6b7a";
const V = "0190a8b4-7c2e-7d4a-9b1c-2f3e4d5c6b7b";

// Assets' subjects as records of any release may hold them.
const ROWS: Array<{ n: number; a: Record<string, unknown> }> = [
  { n: 1, a: { subject: `vcon://${U}` } },
  { n: 2, a: { subject: `vcon://${U.toUpperCase()}` } },
  { n: 3, a: { subject: `VCON://${U}` } },
  { n: 4, a: { subject: `Vcon://${MIXED}` } },
  { n: 5, a: { subject: `vcon://${V}` } },
  // Not a vCon subject: compared as it is, case and all.
  { n: 6, a: { subject: "tel:+15550100" } },
  { n: 7, a: { subject: "TEL:+15550100" } },
  { n: 8, a: { subject: `vcon://${U}x` } },
  { n: 9, a: { subject: `VCON://${U}x` } },
  // Values containment never matches a string against.
  { n: 10, a: { subject: [`vcon://${U}`] } },
  { n: 11, a: { subject: { [`vcon://${U}`]: 1 } } },
  { n: 12, a: { subject: null } },
  { n: 13, a: { other: `vcon://${U}` } },
  { n: 14, a: { subject: 7 } },
  { n: 15, a: { subject: "7" } },
];

describe(`a subject through its canonical spelling and the index of other spellings (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, close } = await bareTestDb("canonical-subject-form"));
    await db.query("create table assets (n int primary key, attributes jsonb not null)");
    await db.query("create index assets_attributes on assets using gin (attributes jsonb_path_ops)");
    // The migration's own statement: the filter must name its predicate as it is written there.
    await db.query(canonicalSubject.sql);
    for (const r of ROWS)
      await db.query("insert into assets values ($1, $2::jsonb)", [r.n, JSON.stringify(r.a)]);
  });
  afterAll(async () => close?.());

  const matches = async (values: string[], subjectIndexed: boolean) => {
    const w = new Where();
    const pairs = values.map((v): [string, string] => ["attributes.subject", v]);
    for (const f of parseAttributeQuery(pairs, ["attributes"]).filters)
      addAttributeFilter(w, f, "attributes", true, subjectIndexed);
    const rows = await db.query<{ n: number }>(`select n from assets where ${w.sql} order by n`, w.params);
    return { sql: w.sql, params: w.params, rows: rows.map((r) => r.n), indexOnly: w.indexOnly };
  };

  it("finds every spelling of a vCon subject, and other subjects as they are, strings only", async () => {
    for (const spelled of [`vcon://${U}`, `VCON://${U.toUpperCase()}`, `vcon://${MIXED}`])
      expect((await matches([spelled], true)).rows, spelled).toEqual([1, 2, 3, 4]);
    expect((await matches([`vcon://${U}`, `vcon://${V}`], true)).rows).toEqual([1, 2, 3, 4, 5]);
    expect((await matches(["tel:+15550100"], true)).rows).toEqual([6]);
    expect((await matches([`vcon://${U}x`], true)).rows).toEqual([8]);
    expect((await matches(["nothing"], true)).rows).toEqual([]);
    // The spellings the attributes' index is asked for find the same rows, the mixed one aside.
    for (const values of [
      [`vcon://${U}`],
      [`vcon://${U}`, `vcon://${V}`],
      ["tel:+15550100"],
      [`vcon://${U}x`],
    ]) {
      const spellings = (await matches(values, false)).rows;
      expect(
        (await matches(values, true)).rows.filter((n) => n !== 4),
        values.join(),
      ).toEqual(spellings);
    }
    // A whole number also matches the number: that stays with the attributes' own form.
    const whole = await matches(["7"], true);
    expect(whole.rows).toEqual([14, 15]);
    expect(whole.sql).not.toContain("lower(");
  });

  it("needs no pattern beside the lower-case match: no other character lower-cases into a vCon subject's alphabet", async () => {
    // `addSubjectFilter` reads `lower(subject) = <canonical vCon subject>` as "the same subject in
    // other cases"; that holds while this engine maps no character outside ASCII into `vcon://`,
    // hex and hyphens (U+0130 and U+212A become `i` and `k`). Every code point but the surrogates.
    const into = await db.query<{ i: number }>(
      `select i from generate_series(128, 1114111) i
        where (i < 55296 or i > 57343) and lower(chr(i)) ~ '^[0-9a-fvcon:/-]+$'`,
    );
    expect(into).toEqual([]);
    const [k] = await db.query<{ l: string }>("select lower($1) as l", ["\u0130\u212A"]);
    expect(k?.l).toBe("ik");
  });

  it("asks the attributes' index for one spelling of each subject, and the partial index for the others", async () => {
    const several = await matches([`vcon://${U}`, `vcon://${V}`, "tel:+15550100"], true);
    expect(several.indexOnly).toBe(true);
    const text = JSON.stringify(several.params);
    expect(text).not.toContain(U.toUpperCase());
    expect(text).not.toContain("VCON://");
    const plan = await db.transaction(async (tx) => {
      await tx.query("set local enable_seqscan = off");
      const rows = await tx.query<Record<string, string>>(
        `explain select n from assets where ${several.sql}`,
        several.params,
      );
      return rows.map((r) => Object.values(r)[0]).join("\n");
    });
    expect(plan).toContain("assets_respelled_subject");
    expect(plan).toContain("assets_attributes");
    // A subject written now, in lower case, has no entry in the partial index.
    const entries = await db.query<{ n: number }>(
      `select n from assets where ${canonicalSubject.sql.slice(canonicalSubject.sql.indexOf(" where ") + 7, -1)} order by n`,
    );
    expect(entries.map((r) => r.n)).toEqual([2, 3, 4, 7, 9]);
  });
});
