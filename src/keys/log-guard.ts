import type { Logger } from "pino";
import { ApiError } from "../errors/api-error.js";
import type { Queryable } from "../store/drivers/db.js";
import { openPeriod } from "../store/ledger/log-periods.js";
import { getSeal, type SealRow, sealedLogs } from "../store/ledger/seals.js";
import { latestCheckpoint } from "../store/ledger/tlog-checkpoints.js";
import { type HeldLog, heldFork } from "./held-log.js";
import type { LogHead, LogHeads } from "./log-heads.js";
import { type DatabaseSigning, resolvePending, settled } from "./pending-outcome.js";
import { HeadBusy, SharedHead } from "./shared-head.js";
import { SignedBasis, type SigningKeyHistory } from "./signed-basis.js";
import { compareWithSigned, sealsDeleted, stateOf } from "./signed-compare.js";
import type { SignedLogState, SignedStates } from "./signed-state.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/**
 * Refuses to sign for a log whose database is behind, or disagrees with, what the service last
 * signed for it (kept in the key directory, `SignedStates`), until an operator accepts the loss
 * (`archivist keys accept-restore`). Records go on being accepted and stored meanwhile: the
 * committer leaves a held log's records STORED, so nothing is appended over the signed entries
 * that are missing. Every process runs one: the workers' sealer asks it before each seal, the
 * API's `/readyz` answers 503 with the reason.
 */
export class LogGuard {
  private readonly held = new Map<string, HeldLog>();
  /**
   * What the live database shows of the signed past, checked against the service's keys: the
   * signed state above guards against a database put back; this, against one written to while
   * the service runs. Every signature follows from one of the two.
   */
  readonly basis: SignedBasis;

  /** The logs' heads shared with every service that could sign them (etcd), when configured. */
  readonly shared: SharedHead | undefined;

  constructor(
    readonly states: SignedStates,
    private readonly log: Logger,
    keys?: SigningKeyHistory,
    heads?: LogHeads,
  ) {
    this.basis = new SignedBasis(keys, log);
    this.shared = heads && new SharedHead(heads, compareWithSigned, log);
  }

  heldLogs(): HeldLog[] {
    return [...this.held.values()];
  }

  isHeld(tenantId: string): boolean {
    return this.held.has(tenantId);
  }

  /**
   * Another service signs this log (its shared head is one this database does not hold): this
   * process answers the log's writes 503, since what it would store is not the log's.
   */
  headLost(tenantId: string): boolean {
    return this.held.get(tenantId)?.kind === "head";
  }

  /**
   * A log's seal, checkpoint or period close failed: that log's fault stays in that log. A refusal
   * (what the database shows of the signed past does not verify) holds it, logged once, tried
   * again after `REFUSED_RETRY_MS`; a swap of the shared head that found another signer of this
   * database ahead waits for the next seal; anything else is logged and tried at the next tick.
   */
  failed(tenantId: string, what: string, err: unknown): void {
    if (err instanceof HeadBusy) {
      this.log.warn({ log: `tenant/${tenantId}`, err: err.message }, `${what} waits for the log's head`);
      return;
    }
    if (err instanceof ApiError && err.kind === "unavailable") {
      this.hold({
        ...heldFork(
          { tenant_id: tenantId, mmr_size: 0, peaks: [], signed_at: "" },
          { mmr_size: 0, tree_size: 0 },
          err.message,
        ),
        kind: "refused",
      });
      return;
    }
    this.log.error({ log: `tenant/${tenantId}`, err }, `${what} failed; tried again at the next tick`);
  }

  private readonly heldSince = new Map<string, number>();

  private hold(h: HeldLog): void {
    if (this.held.has(h.tenant_id)) return;
    this.held.set(h.tenant_id, h);
    this.heldSince.set(h.tenant_id, Date.now());
    this.log.error(
      {
        log: `tenant/${h.tenant_id}`,
        held: h.kind,
        signed_mmr_size: h.signed.mmr_size,
        signed_tree_size: h.signed.tree_size,
        signed_root: h.signed.root,
        signed_at: h.signed.signed_at,
        database_mmr_size: h.database.mmr_size,
        database_tree_size: h.database.tree_size,
        missing_leaves: h.missing_leaves,
        first_missing: h.first_missing,
        last_missing: h.last_missing,
        resolve: `archivist keys accept-restore --log tenant/${h.tenant_id}`,
      },
      `refusing to sign: ${h.reason}`,
    );
  }

  private release(tenantId: string, why: string): void {
    this.held.delete(tenantId);
    this.heldSince.delete(tenantId);
    this.log.warn({ log: `tenant/${tenantId}` }, why);
  }

  /**
   * At start: every log's signed state against the database. A sealed log with no signed state
   * (the first start of this version, or a key directory made anew) adopts the database's newest
   * seal and checkpoint as its signed state: there is nothing else to compare with.
   */
  async checkAll(db: Queryable): Promise<void> {
    const signed = new Set(await this.states.tenants());
    for (const t of signed) {
      const s = await this.states.read(t);
      const h = s && (await this.compare(db, s));
      if (h) this.hold(h);
    }
    for (const { tenant_id } of await sealedLogs(db)) {
      if (signed.has(tenant_id) || (await this.states.read(tenant_id))) continue;
      const seal = await getSeal(db, tenant_id);
      if (!seal) continue;
      await this.states.write(await stateOf(db, tenant_id, seal));
      this.log.info(
        { log: `tenant/${tenant_id}`, mmr_size: seal.mmr_size },
        "signed state of the log taken from the database",
      );
    }
    if (this.shared) await this.checkHeads(db, this.shared);
  }

  /**
   * Each log's shared head against the database (a log with none takes its signed state as its
   * first head), then every head another service settles later, as the store reports it.
   */
  private async checkHeads(db: Queryable, shared: SharedHead): Promise<void> {
    // etcd out of reach at start holds up nothing: the swap before each signing decides, and
    // `/readyz` says etcd does not answer.
    try {
      const tenants = new Set([...(await this.states.tenants()), ...(await shared.heads.tenants())]);
      for (const t of tenants) {
        const h = await shared.adopt(db, t, await this.states.read(t));
        if (h) this.hold(h);
      }
    } catch (err) {
      this.log.error({ err, heads: shared.heads.where }, "the logs' heads could not be read at start");
    }
    const judged = (t: string, head: LogHead) =>
      shared
        .judge(db, t, head)
        .then((h) => {
          if (h) this.hold(h);
        })
        .catch((err: unknown) =>
          this.log.error({ err, log: `tenant/${t}` }, "checking the log's new head failed"),
        );
    void shared.heads
      .watch((t, head) => void judged(t, head))
      .catch((err: unknown) =>
        this.log.error({ err, heads: shared.heads.where }, "watching the logs' heads failed"),
      );
  }

  /** Held logs that are consistent again (an operator accepted the restore): released. */
  async recheck(db: Queryable): Promise<void> {
    for (const [t, h] of this.held) {
      if (h.kind === "refused") {
        if (Date.now() - (this.heldSince.get(t) ?? 0) >= REFUSED_RETRY_MS)
          this.release(t, "trying the refused log again: its stored state may have been mended");
        continue;
      }
      if (h.kind === "head") {
        if (this.shared && !(await this.shared.judge(db, t, await this.shared.heads.read(t))))
          this.release(t, "signing resumed: the log's shared head is one its database holds");
        continue;
      }
      const s = await this.states.read(t);
      // The same judgement as a seal's (`maySign`): released only to be held again would flap.
      if (!s || !((await compareWithSigned(db, s)) ?? (await sealsDeleted(db, s, await getSeal(db, t)))))
        this.release(t, "signing resumed: the log's signed state and its database agree");
    }
  }

  /**
   * Inside the seal's transaction, before signing: may the log be signed? The quick answer when
   * the database's newest seal and checkpoint are what was signed last; else the whole comparison.
   */
  async maySign(tx: Queryable, tenantId: string, prev: SealRow | undefined): Promise<boolean> {
    if (this.held.has(tenantId)) return false;
    const s = await this.current(tx, tenantId, prev);
    if (!s) return true;
    const gone = await sealsDeleted(tx, s, prev);
    if (gone) {
      this.hold(gone);
      return false;
    }
    if (prev && prev.mmr_size === s.mmr_size && prev.peaks.every((p, i) => p === s.peaks[i])) {
      const cp = s.tree_size === undefined ? undefined : await latestCheckpoint(tx, tenantId);
      if (s.tree_size === undefined || (cp?.size === s.tree_size && hex(cp.root) === s.root)) return true;
    }
    const h = await this.compare(tx, s);
    if (h) this.hold(h);
    return h === undefined;
  }

  /**
   * Inside a commit batch's transaction, under the log's lock: may the log at `mmrSize` take new
   * entries? Not when it is smaller than what was signed (an older backup restored while the
   * service runs, found before the next seal would): they would be committed at positions the
   * signed log holds for other entries. The log is then held, its records left STORED.
   */
  async mayAppend(tx: Queryable, tenantId: string, mmrSize: number): Promise<boolean> {
    if (this.held.has(tenantId)) return false;
    const s = await this.states.read(tenantId);
    if (!s || mmrSize >= s.mmr_size) return true;
    const h = await this.compare(tx, s);
    if (h) this.hold(h);
    return h === undefined;
  }

  /**
   * The database against the signed state. A state still pending is one whose signing
   * transaction was never known to commit (the process stopped between the two writes, or its
   * transaction failed outside `signing`): a database behind it that holds exactly the state
   * signed before it, and no seal past that, is that transaction not having committed, not a
   * restore, and signing goes on from there. A state known to have committed is held to strictly.
   */
  private async compare(q: Queryable, s: SignedLogState): Promise<HeldLog | undefined> {
    const h = await compareWithSigned(q, s);
    if (h?.kind !== "behind" || !s.pending) return h;
    const seal = await getSeal(q, s.tenant_id);
    if (!s.before) {
      if (seal) return h;
      await this.states.remove(s.tenant_id);
    } else {
      if (seal?.mmr_size !== s.before.mmr_size || (await compareWithSigned(q, s.before))) return h;
      await this.states.write(s.before);
    }
    this.log.warn(
      {
        log: `tenant/${s.tenant_id}`,
        uncommitted_mmr_size: s.mmr_size,
        database_mmr_size: seal?.mmr_size ?? 0,
      },
      "the last signing's transaction did not commit: signing goes on from the database's newest seal",
    );
    return undefined;
  }

  /**
   * The log's signed state as a signing reads it, inside its transaction: a pending state another
   * process left is first resolved against the database (`resolvePending`), so a signing that
   * never committed is never taken for the state before the next one. `prev`: the newest seal,
   * when the caller has read it.
   */
  private current(tx: Queryable, tenantId: string, prev?: SealRow): Promise<SignedLogState | undefined> {
    const database = async (): Promise<DatabaseSigning> => ({
      seal: prev ?? (await getSeal(tx, tenantId)),
      openPeriod: await openPeriod(tx, tenantId),
    });
    return resolvePending(
      this.states,
      this.log,
      tenantId,
      database,
      this.open.get(tenantId)?.last !== undefined,
    );
  }

  /** Per log, the signing transaction this process has under way: the state before it, the last it wrote. */
  private readonly open = new Map<string, { before?: SignedLogState; last?: SignedLogState }>();
  private readonly queues = new Map<string, Promise<unknown>>();

  /**
   * Runs `transaction`, one that may sign for the log (a seal, a period's close), one at a time
   * per log in this process. What it signed stays pending until it has committed; if it does not
   * commit, the signed state goes back to the one before, since nothing it signed was published.
   */
  signing<T>(tenantId: string, transaction: () => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      const o: { before?: SignedLogState; last?: SignedLogState } = {};
      this.open.set(tenantId, o);
      try {
        const result = await transaction();
        if (o.last) {
          await this.states.write(settled(o.last));
          await this.shared?.settle(settled(o.last));
        }
        return result;
      } catch (err) {
        if (o.last) {
          if (o.before) await this.states.write(o.before);
          else await this.states.remove(tenantId);
          await this.shared?.retract(tenantId, o.before);
          this.log.warn(
            { log: `tenant/${tenantId}`, uncommitted_mmr_size: o.last.mmr_size, err: (err as Error).message },
            "a signing transaction did not commit: its signed state is taken back",
          );
        }
        throw err;
      } finally {
        this.open.delete(tenantId);
      }
    };
    const next = (this.queues.get(tenantId) ?? Promise.resolve()).then(run, run);
    const tail = next.catch(() => undefined);
    this.queues.set(tenantId, tail);
    void tail.then(() => {
      if (this.queues.get(tenantId) === tail) this.queues.delete(tenantId);
    });
    return next;
  }

  /**
   * A period's close, before its transaction commits: the period it opened is kept with the
   * signed state (pending until it has committed, like a seal), so a database that later shows an
   * older open period (its rows deleted) is not closed again over the signed one.
   */
  async periodOpened(tx: Queryable, tenantId: string, period: number, startSize: number): Promise<void> {
    const current = this.open.get(tenantId)?.last ?? (await this.current(tx, tenantId));
    if (!current) return;
    await this.signed(tx, { ...settled(current), open_period: { period, start_size: startSize } });
  }

  /** The newest period this service opened for the log, as kept with the keys. */
  async signedOpenPeriod(tenantId: string): Promise<SignedLogState["open_period"]> {
    return (await this.states.read(tenantId))?.open_period;
  }

  /**
   * The signing transactions this process has queued or under way for the log, settled when the
   * last has ended (committed or not); undefined when there are none. Each holds the log's lock
   * for its whole transaction, so this process's committer waits for it instead of trying.
   */
  signingUnderWay(tenantId: string): Promise<unknown> | undefined {
    return this.queues.get(tenantId);
  }

  /**
   * Before signing, inside the signing transaction: the new signed state, pending until the
   * transaction has committed. With a shared head, the head moves to it first; when another
   * service holds the head, the log is held and nothing is signed (the refusal is thrown).
   */
  async signed(tx: Queryable, state: SignedLogState): Promise<void> {
    const o = this.open.get(state.tenant_id);
    const current = o?.last ?? (await this.current(tx, state.tenant_id));
    const before = o?.last ? o.before : current && settled(current);
    // A seal knows nothing of periods: the open period signed before is kept.
    const openPeriod = state.open_period ?? current?.open_period;
    const written: SignedLogState = {
      ...settled(state),
      ...(openPeriod ? { open_period: openPeriod } : {}),
      pending: true,
      ...(before ? { before } : {}),
    };
    const lost = this.shared && (await this.shared.advance(tx, written));
    if (lost) {
      this.hold(lost);
      throw this.basis.refuse("seal", state.tenant_id, lost.reason);
    }
    await this.states.write(written);
    if (o) {
      if (!o.last) o.before = before;
      o.last = written;
    }
  }

  /**
   * An operator's accepted restore (`archivist keys accept-restore`): the database's state becomes
   * the signed state, and the shared head, from whatever it was.
   */
  async accept(state: SignedLogState): Promise<void> {
    await this.shared?.accept(state);
    await this.states.write(state);
  }
}

/** How long a log held for a refusal waits before it is tried again (one error logged a minute, not one a tick). */
const REFUSED_RETRY_MS = 60_000;
