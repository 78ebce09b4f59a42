import type { Logger } from "pino";
import { CodedError } from "../../formats/coded-error.js";
import type { Db, Queryable } from "../drivers/db.js";
import { openPostgres } from "../drivers/postgres.js";

/**
 * Why `candidate` is not a physical standby of `primary` (undefined when it is): it must be in
 * recovery, and hold the primary's cluster (its system identifier) and database. A restored copy,
 * a second database of the same server or another cluster's standby is none: its rows may be
 * anything, and a promoted standby replays nothing more.
 */
export async function notAStandbyOf(primary: Queryable, candidate: Queryable): Promise<string | undefined> {
  const identity = (q: Queryable) =>
    q.query<{ id: string; db: string; recovery: boolean }>(
      "select (select system_identifier::text from pg_control_system()) as id, current_database() as db, pg_is_in_recovery() as recovery",
    );
  const [p] = await identity(primary);
  const [c] = await identity(candidate);
  if (!p || !c) return "its identity could not be read";
  if (!c.recovery)
    return `it is not in recovery (pg_is_in_recovery() is false): a restored copy, another database or a promoted standby, not a streaming standby of the primary`;
  if (c.id !== p.id)
    return `its system identifier ${c.id} is not the primary's (${p.id}): it is a standby of another cluster`;
  if (c.db !== p.db) return `it names database ${c.db}, the primary's is ${p.db}`;
  return undefined;
}

/** Refused as a standby: the connection is fine, what it reaches is not the primary's standby. */
export class NotAStandby extends CodedError<"NOT_A_STANDBY"> {
  readonly code = "NOT_A_STANDBY";
}

/**
 * A pool to `url` once it has been found a standby of `primary` (`notAStandbyOf`); rejects with
 * `NotAStandby` (the pool closed) when it is not.
 */
export async function openStandby(
  primary: Queryable,
  url: string,
  max: number,
  connectTimeoutMs: number,
): Promise<Db> {
  const db = await openPostgres(url, max, false, connectTimeoutMs);
  try {
    const why = await notAStandbyOf(primary, db);
    if (why) throw new NotAStandby(why);
    return db;
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

/** A WAL position (`X/Y`, hexadecimal halves) as a number that orders as the position does. */
export function lsnValue(text: string): bigint {
  const [hi, lo] = text.split("/");
  if (hi === undefined || lo === undefined) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}

/**
 * Where `standby` has replayed to, or undefined when it replays no more (promoted: it is then no
 * standby, and what it holds may never be the primary's again).
 */
export async function replayedOn(standby: Queryable): Promise<bigint | undefined> {
  const rows = await standby.query<{ lsn: string | null; recovery: boolean }>(
    "select pg_last_wal_replay_lsn()::text as lsn, pg_is_in_recovery() as recovery",
  );
  const r = rows[0];
  return r?.recovery && r.lsn ? lsnValue(r.lsn) : undefined;
}

/**
 * A WAL position of the primary, read by a probe sent after the caller asked: a probe already
 * under way may have read the position before a commit the caller has seen, so a caller that
 * finds one waits for the next. Concurrent callers share the probes, at most two in flight.
 * `flush`: what a replica can have replayed of the commits answered under `synchronous_commit =
 * on` (a read gate). `insert`: the end of the WAL as written so far, past every commit a caller
 * has seen whatever the setting (a commit under `synchronous_commit = off` is seen before its
 * flush): what a standby must have replayed before a write is answered.
 */
export function walProbe(primary: Queryable, which: "flush" | "insert"): () => Promise<bigint> {
  const sql =
    which === "flush"
      ? "select pg_current_wal_flush_lsn()::text as lsn"
      : "select pg_current_wal_insert_lsn()::text as lsn";
  const probe = async () => {
    const rows = await primary.query<{ lsn: string }>(sql);
    return lsnValue(rows[0]?.lsn ?? "0/0");
  };
  let running: Promise<bigint> | undefined;
  let queued: Promise<bigint> | undefined;
  const start = (): Promise<bigint> => {
    const p = probe().finally(() => {
      if (running === p) running = undefined;
    });
    running = p;
    return p;
  };
  return () => {
    if (!running) return start();
    if (!queued) {
      const q = running
        .catch(() => undefined)
        .then(() => {
          queued = undefined;
          return start();
        });
      queued = q;
    }
    return queued;
  };
}

/** A log as the standby holds it: how far signing may go. */
export interface StandbyLog {
  mmr_size: number;
  last_idtimestamp: string;
}

/**
 * The standby an operator would promote if the primary were lost (DATABASE_STANDBY_URL). With one
 * configured, the service signs only what it has applied (`logOn`: a seal, a checkpoint or a
 * period's close covers at most the standby's log) and answers a write only once it has applied
 * it (`applied`), so a failover to it loses nothing signed and nothing acknowledged
 * (docs/scaling.md, "Failover").
 */
export class Standby {
  private pool: Promise<Db> | undefined;
  private replayed = 0n;
  /** The one poll of the standby's replay position under way, which every waiter shares. */
  private poll: Promise<bigint | undefined> | undefined;
  private lastComplaint = 0;
  /** The primary's WAL end, one probe shared by the writes answered meanwhile. */
  private readonly walEnd: () => Promise<bigint>;
  /**
   * Since the process started (`archivist_standby_refused_total`): `write`, writes not answered
   * done because the standby had not applied them in time; `standby_url`, times the configured
   * standby was found to be no standby of the primary (nothing signed meanwhile).
   */
  readonly refused = { write: 0, standby_url: 0 };

  constructor(
    private readonly primary: Db,
    private readonly url: string,
    private readonly log: Logger,
    private readonly waitMs: number,
  ) {
    this.walEnd = walProbe(primary, "insert");
  }

  private connect(): Promise<Db> {
    if (this.pool) return this.pool;
    const p = openStandby(this.primary, this.url, 4, Math.max(1000, this.waitMs));
    this.pool = p;
    p.catch(() => {
      if (this.pool === p) this.pool = undefined;
    });
    return p;
  }

  /** Forgets the pool after a failure: a standby restarted, re-cloned or promoted is checked anew. */
  private drop(err: unknown): void {
    const p = this.pool;
    this.pool = undefined;
    this.replayed = 0n;
    if (p) void p.then((db) => db.close()).catch(() => undefined);
    if (err instanceof NotAStandby) this.refused.standby_url++;
    // Once a minute at most: the sealer asks every second, and each write while it lasts.
    if (Date.now() - this.lastComplaint < 60_000) return;
    this.lastComplaint = Date.now();
    const refused = err instanceof NotAStandby;
    this.log.error(
      { standby: redacted(this.url), err: (err as Error).message },
      refused
        ? "DATABASE_STANDBY_URL is not a standby of the primary: nothing is signed and writes are not acknowledged until it is"
        : "the standby cannot be reached: nothing is signed and writes are not acknowledged until it is",
    );
  }

  private replay(): Promise<bigint | undefined> {
    if (this.poll) return this.poll;
    const p = (async () => {
      const db = await this.connect();
      const at = await replayedOn(db);
      if (at === undefined) throw new NotAStandby("it is no longer in recovery (promoted?)");
      if (at > this.replayed) this.replayed = at;
      return this.replayed;
    })()
      .catch((err: unknown) => {
        this.drop(err);
        return undefined;
      })
      .finally(() => {
        if (this.poll === p) this.poll = undefined;
      });
    this.poll = p;
    return p;
  }

  /**
   * True once the standby has replayed every transaction committed on the primary before the
   * call; false when it has not within the wait (down, refused, or lagging that long).
   */
  async applied(): Promise<boolean> {
    const needed = await this.walEnd();
    if (this.replayed >= needed) return true;
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const at = await this.replay();
      if (at !== undefined && at >= needed) return true;
      if (Date.now() >= deadline) {
        this.refused.write++;
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, at === undefined ? 100 : 2));
    }
  }

  /**
   * The tenancy's log as the standby holds it (its size and last entry's idtimestamp, committed
   * with the entries and nodes in one transaction), or undefined when the standby cannot be read
   * or is not the primary's standby: then nothing may be signed.
   */
  async logOn(tenantId: string): Promise<StandbyLog | undefined> {
    try {
      const db = await this.connect();
      const rows = await db.query<{ mmr_size: string | number; last_idtimestamp: string; recovery: boolean }>(
        "select l.mmr_size, l.last_idtimestamp, pg_is_in_recovery() as recovery from logs l where l.tenant_id = $1",
        [tenantId],
      );
      const r = rows[0];
      if (!r) return { mmr_size: 0, last_idtimestamp: "" };
      if (!r.recovery) throw new NotAStandby("it is no longer in recovery (promoted?)");
      return { mmr_size: Number(r.mmr_size), last_idtimestamp: r.last_idtimestamp };
    } catch (err) {
      this.drop(err);
      return undefined;
    }
  }

  async close(): Promise<void> {
    const p = this.pool;
    this.pool = undefined;
    if (p) await p.then((db) => db.close()).catch(() => undefined);
  }
}

/** A database URL as it may be logged: without its password. */
function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(not a URL)";
  }
}
