import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../src/store/db.js";
import { openPostgres } from "../../../src/store/drivers/postgres.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";

// The PostgreSQL driver's reuse of plans; PGlite runs every statement as it comes.
describe.runIf(testEngine() === "postgres")("statements that reuse their plan (PostgreSQL)", () => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshPostgresDatabase();
    drop = fresh.drop;
    db = await openPostgres(fresh.url, 1);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  const prepared = async () =>
    (await db.query<{ statement: string }>("select statement from pg_prepared_statements")).map(
      (r) => r.statement,
    );

  it("prepares a statement marked reusePlan once per connection, and no other", async () => {
    const byKey = "select $1::int + 1 as n";
    const byValue = "select $1::int + 2 as n";
    for (const v of [1, 2, 3]) {
      expect(await db.query(byKey, [v], { reusePlan: true })).toEqual([{ n: v + 1 }]);
      expect(await db.query(byValue, [v])).toEqual([{ n: v + 2 }]);
    }
    // One connection in this pool: every statement above ran on it.
    expect(await prepared()).toEqual([byKey]);
    await db.transaction(async (tx) => {
      expect(await tx.query(byKey, [9], { reusePlan: true })).toEqual([{ n: 10 }]);
    });
    expect(await prepared()).toEqual([byKey]);
  });
});
