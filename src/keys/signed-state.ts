import { randomBytes } from "node:crypto";
import { type BigIntStats, constants, mkdirSync, statSync } from "node:fs";
import { appendFile, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { StorageError } from "../store/drivers/db.js";

/**
 * What the service last signed for one log, kept with the keys (not in the database it vouches
 * for): the seal's MMR size and peaks, and the checkpoint's tree size and root. A database restored
 * from an older backup, or one that disagrees with it, is found out by comparing with this.
 */
export interface SignedLogState {
  tenant_id: string;
  mmr_size: number;
  /** The sealed MMR's peaks, base64. */
  peaks: string[];
  /** The checkpoint's tree size and root (hex); absent while the log's tree was being backfilled. */
  tree_size?: number;
  root?: string;
  signed_at: string;
  /**
   * The newest period this service opened by closing the one before (its number and first
   * entry): a database whose open period is older (its period rows deleted or rewritten) is not
   * closed again over it. Absent until the log's first close by a version that keeps it.
   */
  open_period?: { period: number; start_size: number };
  /**
   * Written before the signing transaction commits, and written again without this once it has:
   * still true after a start means the process stopped between the two, its transaction committed
   * or not (`LogGuard`).
   */
  pending?: boolean;
  /** The state signed before this one, while this one is pending. */
  before?: SignedLogState;
}

/** An operator's acceptance of a restore that lost what the service had signed (`archivist keys accept-restore`). */
export interface AcceptedRestore {
  tenant_id: string;
  accepted_at: string;
  /** What had been signed and the database no longer holds. */
  signed: SignedLogState;
  /** The database's log when it was accepted. */
  database: { mmr_size: number; tree_size: number };
  /** Leaf indexes signed and missing from the database, [from, to): the end excluded. */
  missing_leaves: [number, number] | null;
  /**
   * The first and the last leaf index missing, both included, as the reason names them (a line
   * written before they were has only `missing_leaves`; `acceptances` derives them from it).
   */
  first_missing: number | null;
  last_missing: number | null;
  reason: string;
  note: string;
}

/** The first and last missing leaf (both included) of an end-excluded range; nulls for none. */
export function missingEnds(missing: [number, number] | null): {
  first_missing: number | null;
  last_missing: number | null;
} {
  return missing
    ? { first_missing: missing[0], last_missing: missing[1] - 1 }
    : { first_missing: null, last_missing: null };
}

const TENANT = /^[0-9a-f-]{36}$/;

/** What tells one file from another under the same name (`SignedStates.read`). */
function stampOf(s: BigIntStats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.ctimeNs}:${s.mtimeNs}`;
}

/** A parsed state made read-only, so the one kept can be handed to every caller. */
function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object") {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/** The key directory's `state/` folder: one file per log, replaced atomically at every seal. */
export class SignedStates {
  private readonly dir: string;

  constructor(keyDir: string) {
    this.dir = join(keyDir, "state");
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  private file(tenantId: string, suffix: string): string {
    if (!TENANT.test(tenantId)) throw new StorageError(`not a tenancy id: ${tenantId}`);
    return join(this.dir, `${tenantId}${suffix}`);
  }

  /**
   * Each log's file as last read: its text, by the file's identity (device, inode, size, change
   * and modification times in nanoseconds). Every change writes a new file and renames it over
   * the last (`write`), so a file that looks the same is the one read; another process's change
   * (a worker's seal, `archivist keys accept-restore`) is a new file, read again.
   */
  private readonly known = new Map<string, { stamp: string; state: SignedLogState }>();

  /**
   * The log's signed state as its file holds it now. Asked before every commit batch (`mayAppend`),
   * it costs one `stat` while the file is unchanged, not an open, read and close (issue 59). That
   * `stat` is synchronous: a local file's inode, ~2 µs of CPU, where the promise's trip through
   * libuv's thread pool cost ~40 µs (both threads, and the wake-up) per commit batch. The state
   * returned is frozen: every caller gets the one object kept for that file.
   */
  async read(tenantId: string): Promise<SignedLogState | undefined> {
    const path = this.file(tenantId, ".json");
    try {
      const known = this.known.get(tenantId);
      if (known && known.stamp === stampOf(statSync(path, { bigint: true }))) return known.state;
      const f = await open(path, constants.O_RDONLY);
      try {
        // The identity and the text of one file: the handle's, whatever is renamed over its name meanwhile.
        const stamp = stampOf(await f.stat({ bigint: true }));
        return this.keep(tenantId, stamp, await f.readFile("utf8"));
      } finally {
        await f.close();
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        this.known.delete(tenantId);
        return undefined;
      }
      throw new StorageError(`the signed state of log ${tenantId} cannot be read: ${(err as Error).message}`);
    }
  }

  /** The state a file's text holds, kept (frozen) by the file's identity. */
  private keep(tenantId: string, stamp: string, text: string): SignedLogState {
    const state = deepFreeze(JSON.parse(text) as SignedLogState);
    this.known.set(tenantId, { stamp, state });
    return state;
  }

  /**
   * Records what was just signed, before it is published: written to a file of its own, flushed,
   * renamed over the last one and the folder flushed, so a crash leaves the old state or the new.
   */
  async write(state: SignedLogState): Promise<void> {
    const target = this.file(state.tenant_id, ".json");
    const tmp = `${target}.${randomBytes(6).toString("hex")}`;
    const text = JSON.stringify(state);
    const f = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await f.writeFile(text);
      await f.sync();
      await rename(tmp, target);
      // Known as written, by the identity the file has under its name now (a rename changes its
      // ctime), so the next `read` is a `stat`; a process renaming another file over it meanwhile
      // changes the name's inode, and that file is read.
      this.keep(state.tenant_id, stampOf(await f.stat({ bigint: true })), text);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    } finally {
      await f.close();
    }
    const d = await open(this.dir, constants.O_RDONLY);
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  }

  /** Forgets a log's signed state (its first signing did not commit: nothing was signed for it). */
  async remove(tenantId: string): Promise<void> {
    this.known.delete(tenantId);
    await rm(this.file(tenantId, ".json"), { force: true });
  }

  /** Every log with a signed state. */
  async tenants(): Promise<string[]> {
    return (await readdir(this.dir))
      .filter((n) => n.endsWith(".json") && TENANT.test(n.slice(0, -5)))
      .map((n) => n.slice(0, -5));
  }

  /** Appends an acceptance to the log's record of them (`<tenant>.accepted.jsonl`, never rewritten). */
  async recordAcceptance(a: AcceptedRestore): Promise<void> {
    await appendFile(this.file(a.tenant_id, ".accepted.jsonl"), `${JSON.stringify(a)}\n`, { mode: 0o600 });
  }

  async acceptances(tenantId: string): Promise<AcceptedRestore[]> {
    const text = await readFile(this.file(tenantId, ".accepted.jsonl"), "utf8").catch(() => "");
    return text
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => {
        const a = JSON.parse(l) as Omit<AcceptedRestore, "first_missing" | "last_missing"> &
          Partial<AcceptedRestore>;
        return {
          ...a,
          ...(a.first_missing === undefined ? missingEnds(a.missing_leaves) : {}),
        } as AcceptedRestore;
      });
  }
}
