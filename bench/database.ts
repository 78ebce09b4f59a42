import { randomBytes } from "node:crypto";
import pg from "pg";

/** A database made for one bench run, dropped afterwards. */
export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates an empty database next to the one `adminUrl` names (as the test helpers do). */
export async function freshDatabase(adminUrl: string): Promise<FreshDatabase> {
  const name = `archivist_bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
