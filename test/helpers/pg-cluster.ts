import { execFile } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { asPostgres } from "../../bench/pg-replica.js";
import { freePort } from "./ports.js";

const run = promisify(execFile);

/** A PostgreSQL cluster of the test's own (initdb in a temporary directory, its own port on loopback). */
export interface PgCluster {
  port: number;
  /** The admin URL of database `name` (postgres by default). */
  url(name?: string): string;
  /**
   * SIGKILL to the postmaster and every process it started, at once: the host died. Nothing is
   * shut down, flushed or sent to a standby after this.
   */
  kill9(): Promise<void>;
  /** `pg_ctl stop -m immediate`: the server quits at once, without a checkpoint, as on a power loss. */
  stopImmediate(): Promise<void>;
  /** Stops it if it still runs and removes its directory. */
  close(): Promise<void>;
}

/** PostgreSQL's bin directory: TEST_PG_BINDIR, else the version `pg_config` or Debian's layout names. */
function binDir(): string {
  if (process.env.TEST_PG_BINDIR) return process.env.TEST_PG_BINDIR;
  for (const v of ["17", "16", "15", "14"]) {
    const dir = `/usr/lib/postgresql/${v}/bin`;
    if (existsSync(join(dir, "initdb"))) return dir;
  }
  throw new Error("no PostgreSQL bin directory with initdb (set TEST_PG_BINDIR)");
}

/**
 * Starts a primary of the test's own: `initdb`, `wal_level = replica`, replication allowed from
 * loopback (so a standby can be cloned and stream), on a free port. The shared server at 5432 is
 * never touched, so the test may kill this one. As root, the postmaster runs as `postgres`.
 * Throws with the reason when it cannot (callers decide whether that fails, in CI, or skips).
 */
export async function startPgCluster(): Promise<PgCluster> {
  const { as, dir, root } = await asPostgres(binDir(), "archivist-primary-");
  const data = join(dir, "data");
  const port = await freePort();
  const ctl = (action: string) =>
    as("pg_ctl", ["-D", data, "-l", join(dir, "primary.log"), "-w", "-t", "60", "-m", "fast", action]);
  try {
    await as("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync"]);
    const conf = {
      port: String(port),
      listen_addresses: "'127.0.0.1'",
      unix_socket_directories: `'${dir}'`,
      wal_level: "replica",
      max_wal_senders: "4",
      max_connections: "60",
      // Asynchronous replication, the default: what the service itself must make safe.
      synchronous_commit: "on",
      fsync: "off",
      shared_buffers: "32MB",
    };
    // postgresql.conf, not .auto.conf: a base backup copies both, and a standby writes its own
    // postgresql.conf (bench/pg-replica.ts) but would keep these from .auto.conf, port included.
    appendFileSync(
      join(data, "postgresql.conf"),
      Object.entries(conf)
        .map(([k, v]) => `${k} = ${v}\n`)
        .join(""),
    );
    writeFileSync(
      join(data, "pg_hba.conf"),
      "local all all trust\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n",
    );
    if (root) await run("chown", ["-R", "postgres:postgres", data]);
    await ctl("start");
  } catch (err) {
    await ctl("stop").catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let killed = false;
  return {
    port,
    url(name = "postgres") {
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async kill9() {
      const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
      // The postmaster's children by their ids (ps), then the postmaster: no backend outlives it.
      const children = (
        await run("ps", ["-o", "pid=", "--ppid", String(pid)]).catch(() => ({ stdout: "" }))
      ).stdout
        .split("\n")
        .map((l) => Number(l.trim()))
        .filter((n) => n > 0);
      for (const p of [pid, ...children])
        try {
          process.kill(p, "SIGKILL");
        } catch {
          // Gone already.
        }
      killed = true;
    },
    async stopImmediate() {
      await as("pg_ctl", ["-D", data, "-w", "-t", "60", "-m", "immediate", "stop"]);
      killed = true;
    },
    async close() {
      if (!killed) await ctl("stop").catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
