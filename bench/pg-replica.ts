import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./service.js";

const run = promisify(execFile);

/** A streaming replica of a local PostgreSQL, on loopback, in a directory of its own. */
export interface PgReplica {
  /** The replica's URL of the primary's database `primaryUrl` names. */
  urlOf(primaryUrl: string): string;
  /** Stops applying the WAL it receives (`pg_wal_replay_pause`): the replica lags from now on. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Promotes it (`pg_promote`): out of recovery, writable, no longer the primary's replica. */
  promote(): Promise<void>;
  /** Stops the replica's postmaster (fast shutdown); `start` brings it back. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

async function primarySetting(c: pg.Client, name: string): Promise<string> {
  const rows = await c.query<{ v: string }>(`select current_setting($1) as v`, [name]);
  return rows.rows[0]?.v ?? "";
}

/**
 * Starts a hot standby of the PostgreSQL at `primaryAdminUrl` (on this machine: the bench's
 * `scaleout` and the read-replica tests): `pg_basebackup` into a temporary directory, a
 * second postmaster on a free port, streaming from the primary. Needs the primary's
 * `wal_level` at `replica` or above and a pg_hba rule for replication from 127.0.0.1 (.ci/run
 * adds it); as root, the postmaster runs as the `postgres` user. Throws with the reason when it
 * cannot: callers decide whether that fails (CI) or skips.
 */
/**
 * How to run PostgreSQL's programs from `bin`, and a new temporary directory they may write. The
 * server refuses to run as root: as root, its own user runs them and owns the directory.
 */
export async function asPostgres(
  bin: string,
  prefix: string,
): Promise<{ as: (cmd: string, args: string[]) => Promise<{ stdout: string }>; dir: string; root: boolean }> {
  const root = userInfo().uid === 0;
  const as = (cmd: string, args: string[]) =>
    root ? run("runuser", ["-u", "postgres", "--", join(bin, cmd), ...args]) : run(join(bin, cmd), args);
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (root) {
    const id = async (flag: string) => Number((await run("id", [flag, "postgres"])).stdout.trim());
    chownSync(dir, await id("-u"), await id("-g"));
  }
  return { as, dir, root };
}

export async function startPgReplica(primaryAdminUrl: string): Promise<PgReplica> {
  const admin = new pg.Client({ connectionString: primaryAdminUrl });
  await admin.connect();
  let bin: string;
  const settings: Record<string, string> = {};
  try {
    const level = await primarySetting(admin, "wal_level");
    if (level === "minimal") throw new Error("the primary's wal_level is minimal: streaming needs replica");
    const hba = await admin.query<{ n: number }>(
      "select count(*)::int as n from pg_hba_file_rules where 'replication' = any(database)",
    );
    if ((hba.rows[0]?.n ?? 0) === 0)
      throw new Error(
        "the primary's pg_hba.conf has no replication rule: add `host replication all 127.0.0.1/32 trust` and reload (.ci/run does)",
      );
    const major = Math.floor(Number(await primarySetting(admin, "server_version_num")) / 10000);
    bin = process.env.TEST_PG_BINDIR ?? `/usr/lib/postgresql/${major}/bin`;
    // A standby refuses to start with fewer of these than its primary has.
    for (const name of [
      "max_connections",
      "max_worker_processes",
      "max_wal_senders",
      "max_prepared_transactions",
      "max_locks_per_transaction",
    ])
      settings[name] = await primarySetting(admin, name);
  } finally {
    await admin.end();
  }
  if (!existsSync(join(bin, "pg_basebackup")))
    throw new Error(`no pg_basebackup in ${bin} (set TEST_PG_BINDIR to PostgreSQL's bin directory)`);

  const { as, dir, root } = await asPostgres(bin, "archivist-replica-");
  const data = join(dir, "data");
  const primary = new URL(primaryAdminUrl);
  const port = await freePort();
  const ctl = (action: string) =>
    as("pg_ctl", ["-D", data, "-l", join(dir, "replica.log"), "-w", "-t", "60", "-m", "fast", action]);
  try {
    await as("pg_basebackup", [
      "-h",
      primary.hostname,
      "-p",
      primary.port || "5432",
      "-U",
      primary.username || "postgres",
      "-D",
      data,
      "-R",
      "-X",
      "stream",
      "--checkpoint=fast",
    ]);
    // Debian keeps the primary's configuration in /etc, which a base backup does not copy.
    const conf = {
      port: String(port),
      listen_addresses: "'127.0.0.1'",
      unix_socket_directories: `'${dir}'`,
      hot_standby: "on",
      hot_standby_feedback: "on",
      fsync: "off",
      ...settings,
    };
    const write = (name: string, text: string) => writeFileSync(join(data, name), text);
    write(
      "postgresql.conf",
      Object.entries(conf)
        .map(([k, v]) => `${k} = ${v}\n`)
        .join(""),
    );
    write("pg_hba.conf", "local all all trust\nhost all all 127.0.0.1/32 trust\n");
    if (root) await run("chown", ["-R", "postgres:postgres", data]);
    await ctl("start");
  } catch (err) {
    await ctl("stop").catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const onReplica = async (sql: string) => {
    const c = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  return {
    urlOf(primaryUrl) {
      const u = new URL(primaryUrl);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    pause: () => onReplica("select pg_wal_replay_pause()"),
    resume: () => onReplica("select pg_wal_replay_resume()"),
    promote: () => onReplica("select pg_promote(true, 60)"),
    stop: async () => {
      await ctl("stop");
    },
    start: async () => {
      await ctl("start");
    },
    async close() {
      await ctl("stop").catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
