import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../src/store/drivers/db.js";
import { openPostgres } from "../../../src/store/drivers/postgres.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";

// The driver sends each statement as a query object it names itself (node-postgres' copy of a
// config object was a measurable share of the service's CPU), and lends its clients by hand.
describe.runIf(testEngine() === "postgres")("the PostgreSQL driver", () => {
  let fresh: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let db: Db;
  beforeAll(async () => {
    fresh = await freshPostgresDatabase();
    db = await openPostgres(fresh.url, 2, false);
  });
  afterAll(async () => {
    await db.close();
    await fresh.drop();
  });

  const backendPid = async (q: Pick<Db, "query">) =>
    (await q.query<{ pid: number }>("select pg_backend_pid() as pid"))[0]?.pid as number;

  it("answers rows of statements with and without a kept plan, and their parameters", async () => {
    const sql = "select $1::int + 1 as n, $2::text as t";
    for (let i = 0; i < 3; i++) {
      expect(await db.query(sql, [i, "x"], { reusePlan: true })).toEqual([{ n: i + 1, t: "x" }]);
      expect(await db.query(sql, [i, "y"])).toEqual([{ n: i + 1, t: "y" }]);
    }
    // The kept plan is a prepared statement of the connection, named by the driver.
    const named = await db.transaction(async (tx) => {
      await tx.query(sql, [1, "z"], { reusePlan: true });
      return tx.query<{ name: string }>("select name from pg_prepared_statements where statement = $1", [
        sql,
      ]);
    });
    expect(named[0]?.name).toMatch(/^archivist_\d+$/);
  });

  it("refuses a bad statement with the database's error and keeps serving", async () => {
    await expect(db.query("select * from no_such_table")).rejects.toThrow(/no_such_table/);
    await expect(db.transaction((tx) => tx.query("select 1/0"))).rejects.toThrow(/division by zero/);
    expect(await db.query("select 1 as one")).toEqual([{ one: 1 }]);
  });

  it("survives a connection lost in the middle of a transaction, and drops that connection", async () => {
    const admin = new pg.Client({ connectionString: fresh.url });
    await admin.connect();
    try {
      let lost = 0;
      const failed = db.transaction(async (tx) => {
        lost = await backendPid(tx);
        await admin.query("select pg_terminate_backend($1)", [lost]);
        await tx.query("select pg_sleep(0.05)");
      });
      await expect(failed).rejects.toThrow();
      // The process is still here (no unheard 'error' event), and the next statements run on
      // connections that are not the one that was lost.
      for (let i = 0; i < 4; i++) expect(await backendPid(db)).not.toBe(lost);
      expect(await db.transaction((tx) => tx.query("select 2 as two"))).toEqual([{ two: 2 }]);
    } finally {
      await admin.end();
    }
  });
});
