import { randomBytes } from "node:crypto";
import pg from "pg";

/** A database made for one bench run, dropped afterwards. */
export interface FreshDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * Creates a database next to the one `adminUrl` names (as the test helpers do): empty, or a copy
 * of `template` (a database nobody is connected to).
 */
export async function freshDatabase(adminUrl: string, template?: string): Promise<FreshDatabase> {
  const name = `archivist_bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${template ? ` template ${template}` : ""}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
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
