import type { Logger } from "pino";
import { CodedError } from "../formats/coded-error.js";
import type { Queryable } from "../store/drivers/db.js";
import { type HeldLog, heldFork } from "./held-log.js";
import type { LogHead, LogHeads } from "./log-heads.js";
import type { SignedLogState } from "./signed-state.js";

/** The database against a signed state: undefined when it holds it (`compareWithSigned`). */
export type CompareWithSigned = (q: Queryable, s: SignedLogState) => Promise<HeldLog | undefined>;

/** A swap refused for a reason that passes (another signer of this database is ahead): try at the next seal. */
export class HeadBusy extends CodedError<"HEAD_BUSY"> {
  readonly code = "HEAD_BUSY";
}

const describe = (s: SignedLogState) =>
  `MMR size ${s.mmr_size}${s.tree_size !== undefined ? `, tree size ${s.tree_size}, root ${s.root}` : ""}${s.pending ? ", pending" : ""}`;

/**
 * A log's head shared by every service that could sign it (`LogHeads`, etcd): before this process
 * signs, the head moves from the head it last knew to the state it is about to sign. When another
 * writer moved it meanwhile, this process follows only a head its own database holds (another
 * process of the same deployment sealed); a head its database does not hold was signed over
 * another database of the log (a promoted standby, a restored copy): the log is lost to this
 * process, which signs nothing for it and answers its writes 503 (`LogGuard.headLost`).
 */
export class SharedHead {
  /** Per log, the revision of the head this process last read or wrote. */
  private readonly known = new Map<string, string>();
  /** Swaps refused, since the process started (`/metrics`). */
  refused = 0;

  constructor(
    readonly heads: LogHeads,
    private readonly compare: CompareWithSigned,
    private readonly log: Logger,
  ) {}

  /** The lost log's hold: the head found and why this database cannot follow it. */
  private lost(
    tenantId: string,
    head: LogHead | undefined,
    why: string,
    database: HeldLog["database"],
  ): HeldLog {
    const signed = head?.state ?? { tenant_id: tenantId, mmr_size: 0, peaks: [], signed_at: "" };
    return {
      ...heldFork(
        signed,
        database,
        `the log's head in ${this.heads.where} is ${head ? describe(head.state) : "gone"} (signed by another process, ${head?.signer ?? "unknown"}), and ${why}: another service signs this log over another database (a promoted standby, a copy), so this one signs nothing and takes no writes for it`,
      ),
      kind: "head",
    };
  }

  /**
   * A head found in the store against this database: followed (its revision known) when the
   * database holds it, else the log's hold.
   */
  async judge(q: Queryable, tenantId: string, head: LogHead | undefined): Promise<HeldLog | undefined> {
    if (!head) {
      this.known.delete(tenantId);
      return undefined;
    }
    const h = await this.compare(q, head.state);
    if (!h) {
      this.known.set(tenantId, head.revision);
      return undefined;
    }
    return this.lost(tenantId, head, "this database does not hold it", h.database);
  }

  /**
   * At start, for a log this process has a signed state of: its head as the store holds it, or,
   * for a log the store has no head of yet (the first start with etcd), the signed state as its
   * first head. The log's hold when the database does not hold the head.
   */
  async adopt(
    q: Queryable,
    tenantId: string,
    local: SignedLogState | undefined,
  ): Promise<HeldLog | undefined> {
    const head = await this.heads.read(tenantId);
    if (head || !local) return this.judge(q, tenantId, head);
    const r = await this.heads.swap(tenantId, undefined, { ...local, pending: undefined, before: undefined });
    return this.judge(q, tenantId, r.ok ? r.head : r.current);
  }

  /**
   * Inside the signing transaction, under the log's lock, before anything is signed: the head
   * moves to `next`. Undefined once it has; the log's hold when another writer moved it to a head
   * this database does not hold. `HeadBusy` when that writer's head is ahead of what this process
   * is about to sign: nothing is signed now.
   */
  async advance(tx: Queryable, next: SignedLogState): Promise<HeldLog | undefined> {
    const t = next.tenant_id;
    for (let tries = 0; tries < 3; tries++) {
      const r = await this.heads.swap(t, this.known.get(t), next);
      if (r.ok) {
        this.known.set(t, r.head.revision);
        return undefined;
      }
      // Our own swap, applied before its answer was lost and tried again by the client.
      if (
        r.current?.signer === this.heads.signer &&
        JSON.stringify(r.current.state) === JSON.stringify(next)
      ) {
        this.known.set(t, r.current.revision);
        return undefined;
      }
      this.refused++;
      if (!r.current)
        return this.lost(t, undefined, "it was removed from the store", { mmr_size: 0, tree_size: 0 });
      const held = await this.judge(tx, t, r.current);
      if (held) return held;
      if (r.current.state.mmr_size > next.mmr_size)
        throw new HeadBusy(
          `log tenant/${t}: its head (${describe(r.current.state)}) is past the seal this process was about to sign (MMR size ${next.mmr_size})`,
        );
    }
    throw new HeadBusy(`log tenant/${t}: its head kept moving under this process's swaps`);
  }

  /**
   * The signing transaction did not commit: the head goes back to `before` (or away, for a log's
   * first signing), if it is still the one this process wrote: nothing it signed was published.
   */
  async retract(tenantId: string, before: SignedLogState | undefined): Promise<void> {
    const from = this.known.get(tenantId);
    if (from === undefined) return;
    if (before) {
      const r = await this.heads.swap(tenantId, from, before);
      if (r.ok) this.known.set(tenantId, r.head.revision);
      else
        this.log.warn(
          { log: `tenant/${tenantId}` },
          "the log's head moved before an unfinished signing could take it back",
        );
    } else if (await this.heads.remove(tenantId, from)) this.known.delete(tenantId);
  }

  /** After the signing transaction committed: the head, no longer pending. */
  async settle(state: SignedLogState): Promise<void> {
    const t = state.tenant_id;
    const r = await this.heads.swap(t, this.known.get(t), state);
    if (r.ok) this.known.set(t, r.head.revision);
  }

  /** An operator's accepted restore: the head becomes the database's state, from whatever it was. */
  async accept(state: SignedLogState): Promise<void> {
    const head = await this.heads.read(state.tenant_id);
    const r = await this.heads.swap(state.tenant_id, head?.revision, state);
    if (!r.ok)
      throw new Error(
        `the log's head in ${this.heads.where} moved while the restore was accepted: run it again`,
      );
    this.known.set(state.tenant_id, r.head.revision);
  }
}
