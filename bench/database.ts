import { randomBytes } from "node:crypto";
import pg from "pg";

/** A database made for one bench run, dropped afterwards. */
export interface FreshDatabase {
  name: string;
  url: string;
  /** The server processes serving this database now (its backends and autovacuum workers). */
  backendPids(): Promise<number[]>;
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
  // One connection for the listings, to the admin database: it is none of this database's backends.
  let lister: Promise<pg.Client> | undefined;
  const closeLister = async () => {
    const c = lister;
    lister = undefined;
    await (await c?.catch(() => undefined))?.end().catch(() => undefined);
  };
  return {
    name,
    url: url.toString(),
    async backendPids() {
      lister ??= (async () => {
        const c = new pg.Client({ connectionString: adminUrl });
        await c.connect();
        return c;
      })();
      const { rows } = await (await lister).query<{ pid: number }>(
        "select pid from pg_stat_activity where datname = $1",
        [name],
      );
      return rows.map((r) => r.pid);
    },
    async drop() {
      await closeLister();
      // BENCH_KEEP_DATABASES: left for EXPLAIN and pg_stat_statements after the run, as a live service had them.
      if (process.env.BENCH_KEEP_DATABASES) {
        console.error(`[bench] kept database ${name}`);
        return;
      }
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
