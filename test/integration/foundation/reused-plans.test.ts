import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../src/store/drivers/db.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";

describe(`statements that reuse their plan (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    // One connection on PostgreSQL: every statement below runs on it.
    ({ db, close } = await bareTestDb("reused-plans"));
  });
  afterAll(async () => close?.());

  it("answer as any statement does; on PostgreSQL they are prepared once per connection, and no other", async () => {
    const byKey = "select $1::int + 1 as n";
    const byValue = "select $1::int + 2 as n";
    for (const v of [1, 2, 3]) {
      expect(await db.query(byKey, [v], { reusePlan: true })).toEqual([{ n: v + 1 }]);
      expect(await db.query(byValue, [v])).toEqual([{ n: v + 2 }]);
    }
    await db.transaction(async (tx) => {
      expect(await tx.query(byKey, [9], { reusePlan: true })).toEqual([{ n: 10 }]);
    });
    const prepared = (
      await db.query<{ statement: string }>("select statement from pg_prepared_statements")
    ).map((r) => r.statement);
    // PGlite runs every statement as it comes (one connection, no named statements).
    expect(prepared).toEqual(db.kind === "postgres" ? [byKey] : []);
  });
});
