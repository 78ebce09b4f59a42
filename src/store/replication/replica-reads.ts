import type { Logger } from "pino";
import type { Db, QueryOptions } from "../drivers/db.js";
import { NotAStandby, openStandby, replayedOn as replayPosition, walProbe } from "./standby.js";

/**
 * Where the reads that may be served by a replica go (lists, searches, counts, proofs, tiles):
 * a PostgreSQL streaming replica when DATABASE_READ_URL names one, else the primary itself.
 */
export interface Reads extends Db {
  /** How many statements (or read-only transactions) each side served: the replica's share. */
  readonly served: { replica: number; primary: number };
  /** How many times the read URL was found to be no streaming standby of the primary (`archivist_standby_refused_total`). */
  readonly refused: { read_url: number };
  /** Closes the replica's pool; the primary is its owner's to close. */
  close(): Promise<void>;
}

/** Reads on the primary: the embedded default and any deployment without a replica. */
export function primaryReads(db: Db): Reads {
  const served = { replica: 0, primary: 0 };
  return {
    kind: db.kind,
    served,
    refused: { read_url: 0 },
    query(sql, params, opts) {
      served.primary++;
      return db.query(sql, params, opts);
    },
    transaction(fn) {
      served.primary++;
      return db.transaction(fn);
    },
    ping: () => db.ping(),
    close: async () => undefined,
  };
}

/** How long a replica that failed to connect is left alone before it is tried again. */
const DOWN_FOR_MS = 2000;
/** How long a read URL found not to be a standby of the primary is left alone before it is checked again. */
const REFUSED_FOR_MS = 30_000;
/** How long a connection to the replica may take before the primary answers instead. */
const CONNECT_TIMEOUT_MS = 1000;
/** How long reads stop waiting for a replica that stayed behind a whole wait. */
const BEHIND_FOR_MS = 1000;
/** How often a read waiting for a lagging replica asks where its replay is. */
const POLL_MS = 5;
/**
 * How long a replica found in recovery is believed still to be without asking again: a replica
 * promoted meanwhile (then writable, and no longer the primary's) is found out within this,
 * even while the primary's WAL does not move.
 */
const RECHECK_MS = 1000;

/** A connection-level failure (the replica is down or unreachable), as opposed to a refused statement. */
function unreachable(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== "string") return true;
  return /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE|57P0[1-3]|08...)$/.test(code);
}

/**
 * A streaming replica as the reads see it: its pool, once found a standby of the primary, and
 * what is known of it (down or refused until when, replayed how far, behind until when).
 */
class ReplicaGate {
  private replica: Promise<Db> | undefined;
  downUntil = 0;
  private replayed = 0n;
  /** When the replica was last found in recovery (its replay position read). */
  private checkedAt = 0;
  /** Until when reads do not wait for the replica: it stayed behind a whole wait a moment ago. */
  private behindUntil = 0;

  constructor(
    private readonly primary: Db,
    private readonly url: string,
    private readonly opts: { waitMs: number; max?: number; log: Pick<Logger, "error"> },
    private readonly refused: { read_url: number },
  ) {}

  connect(): Promise<Db> {
    if (this.replica) return this.replica;
    // A read URL that is no standby of the primary (a restored copy, another database, a
    // promoted replica) holds rows that may be anything: it serves nothing (issue 60).
    const r = openStandby(this.primary, this.url, this.opts.max ?? 16, CONNECT_TIMEOUT_MS);
    this.replica = r;
    // A pool that never opened is made anew at the next read (or after DOWN_FOR_MS when down).
    r.catch(() => {
      if (this.replica === r) this.replica = undefined;
    });
    return r;
  }

  markDown(r: Promise<Db> | undefined, err?: unknown): void {
    const refused = err instanceof NotAStandby;
    if (refused) {
      this.refused.read_url++;
      if (Date.now() >= this.downUntil)
        this.opts.log.error(
          { err: err.message },
          "DATABASE_READ_URL is not a streaming standby of DATABASE_URL: the primary serves every read",
        );
    }
    this.downUntil = Date.now() + (refused ? REFUSED_FOR_MS : DOWN_FOR_MS);
    this.replayed = 0n;
    this.checkedAt = 0;
    if (r && this.replica === r) {
      this.replica = undefined;
      void r.then((db) => db.close()).catch(() => undefined);
    }
  }

  private async replayedOn(db: Db): Promise<bigint> {
    // None: out of recovery (promoted since it was found a standby), so no longer the primary's.
    const at = await replayPosition(db);
    if (at === undefined) throw new NotAStandby("it is no longer in recovery (promoted?)");
    this.checkedAt = Date.now();
    if (at > this.replayed) this.replayed = at;
    return this.replayed;
  }

  /** The replica, once it has replayed past `needed`; undefined if it stays behind. */
  async caughtUp(needed: bigint): Promise<Db | undefined> {
    const db = await this.connect();
    if (this.replayed >= needed && Date.now() - this.checkedAt < RECHECK_MS) return db;
    // A replica that lags by more than the wait would make every read pay the wait: for a
    // while after, a read asks once and goes to the primary at once if it is still behind.
    const deadline = Date.now() < this.behindUntil ? 0 : Date.now() + this.opts.waitMs;
    for (;;) {
      if ((await this.replayedOn(db)) >= needed) return db;
      if (Date.now() >= deadline) {
        if (deadline > 0) this.behindUntil = Date.now() + BEHIND_FOR_MS;
        return undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  async close(): Promise<void> {
    const r = this.replica;
    this.replica = undefined;
    if (r) await r.then((db) => db.close()).catch(() => undefined);
  }
}

/**
 * Reads from a streaming replica that never answer less than the primary would (read-your-writes
 * across every process): each statement first learns the primary's flushed WAL position, and runs
 * on the replica only once the replica has replayed past it, which it waits for at most `waitMs`
 * (not at all for a second after a wait that ran out); else, and whenever the replica fails, it
 * runs on the primary. Replay only moves forward and a
 * standby's snapshot taken after a commit's replay sees it, so the replay position learnt on any
 * connection holds for all (it is forgotten on a failure: a restarted replica may start behind).
 * The price is one round trip to the primary per statement (`select` of a WAL position, touching
 * no table), which coalesces under load; the statement's work is the replica's.
 */
export function replicaReads(
  primary: Db,
  replicaUrl: string,
  opts: { waitMs: number; max?: number; log: Pick<Logger, "error"> },
): Reads {
  const served = { replica: 0, primary: 0 };
  const refused = { read_url: 0 };
  const primaryLsn = walProbe(primary, "flush");
  const gate = new ReplicaGate(primary, replicaUrl, opts, refused);
  /** `work` on the replica when it has caught up with the primary, else (or when it fails) on the primary. */
  const run = async <T>(work: (db: Db) => Promise<T>): Promise<T> => {
    const onPrimary = () => {
      served.primary++;
      return work(primary);
    };
    if (Date.now() < gate.downUntil) return onPrimary();
    const needed = await primaryLsn();
    const r = gate.connect();
    let db: Db | undefined;
    try {
      db = await gate.caughtUp(needed);
    } catch (err) {
      if (err instanceof NotAStandby || unreachable(err)) gate.markDown(r, err);
      return onPrimary();
    }
    if (!db) return onPrimary();
    try {
      const result = await work(db);
      served.replica++;
      return result;
    } catch (err) {
      // A statement the replica cancelled (a conflict with recovery), or a replica gone: the
      // primary answers. A statement refused for its input is refused there too, as it would be.
      if (unreachable(err)) gate.markDown(r);
      return onPrimary();
    }
  };
  return {
    kind: primary.kind,
    served,
    refused,
    query: <R>(sql: string, params?: readonly unknown[], o?: QueryOptions) =>
      run((db) => db.query<R>(sql, params, o)),
    /** For read-only work (a replica refuses writes): run again whole on the primary if the replica fails it. */
    transaction: (fn) => run((db) => db.transaction(fn)),
    ping: () => primary.ping(),
    close: () => gate.close(),
  };
}
