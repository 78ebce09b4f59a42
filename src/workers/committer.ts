import type { Logger } from "pino";
import { IdTimestampGenerator } from "../core/log/idtimestamp.js";
import type { Db } from "../store/drivers/db.js";
import { tenantsWithStoredRecords } from "../store/ledger/ledger.js";
import type { FreshEvents } from "../store/records/fresh-events.js";
import type { FreshIndexFacts } from "../vindex/fresh-facts.js";
import { type CommitOptions, commitBatch, workerId } from "./commit-batch.js";
import { LogFrontiers } from "./log-frontiers.js";
import { backfillTree, logsBehind } from "./tlog-backfill.js";

const BATCH = 2000;
/** Entries the RFC 9162 backfill appends per transaction (each holds the log's lock). */
const BACKFILL_BATCH = 5000;

/**
 * How long a wake-up waits to gather more work into one batch. Each batch pays a dozen
 * statements whatever its size, and on PGlite it runs on the API's thread: batches every
 * few milliseconds made the committer a large share of ingest. 25 ms adds that much to
 * POST→COMMITTED and divides the batches' fixed cost by the groups it gathers.
 */
const GATHER_MS = 25;

/**
 * Appends STORED records to their tenancy's log. Wake-ups only shorten the wait: a sweep
 * of the database every `maxDelayMs` finds all work, so a lost wake-up or a crash only delays.
 */
export class Committer {
  private readonly gen = new IdTimestampGenerator(workerId());
  private readonly due = new Set<string>();
  /** Tenancies whose log's lock another process held at their last try: due again at the next timer. */
  private readonly retry = new Set<string>();
  /** Tenancies whose log this process is signing (a seal, a period's close): due when it ends. */
  private readonly afterSigning = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private sweep: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private fresh: FreshEvents | undefined;
  /** This process's last commit to each log: what the next one would read back (`log-frontiers.ts`). */
  private readonly frontiers = new LogFrontiers();
  /** Until every log's RFC 9162 tree has caught up with its MMR, each sweep backfills. */
  private treesBehind = true;
  private backfilling = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly maxDelayMs: number,
    /** The write path's hand-off: rows this process's appenders stored (`src/services/write/write-path.ts`). */
    private readonly handoff: FreshEvents,
    private readonly onCommitted: (tenantId: string) => void = () => undefined,
    /** A log the service refuses to sign for (`LogGuard`): its records wait, STORED. */
    private readonly held: (tenantId: string) => boolean = () => false,
    /** Asked under the log's lock before each batch (`CommitOptions.mayAppend`). */
    private readonly mayAppend?: CommitOptions["mayAppend"],
    /**
     * This process's signing of the log under way, if any (`LogGuard.signingUnderWay`): it holds
     * the log's lock through its transaction, so a try would only be refused.
     */
    private readonly signingUnderWay: (tenantId: string) => Promise<unknown> | undefined = () => undefined,
    /** The verifiable index's hand-off: the facts of the entries each committed batch appended. */
    private readonly indexFacts?: FreshIndexFacts,
  ) {}

  start(): void {
    this.fresh = this.handoff.open();
    this.sweep = setInterval(() => void this.sweepAll(), Math.max(this.maxDelayMs, 10));
    void this.sweepAll();
  }

  /** Work is waiting for this tenancy: commit soon, grouping what arrives meanwhile. */
  wake(tenantId: string): void {
    if (this.stopped) return;
    // A log this process is signing is due when the signing ends (`commitAfter`).
    if (this.afterSigning.has(tenantId)) return;
    // A log refused for its lock waits for the timer: woken by each group stored meanwhile, a
    // drain under way would try it again at once, batch after refused batch.
    if (!this.retry.has(tenantId)) this.due.add(tenantId);
    this.schedule();
  }

  /**
   * One timer for every tenancy due soon: those woken, and those whose log's lock another
   * process held (its committer, or its seal), which are tried again with them, once a window.
   * Each try while the lock is held is three statements: a retry's own timer drained apart from
   * the wake-ups', and the groups stored meanwhile woke a drain under way to try the log again
   * at once, a few milliseconds apart (issue 59).
   */
  private schedule(): void {
    this.timer ??= setTimeout(
      () => {
        this.timer = undefined;
        for (const t of this.retry) this.due.add(t);
        this.retry.clear();
        void this.drain();
      },
      Math.min(this.maxDelayMs, GATHER_MS),
    );
  }

  private async sweepAll(): Promise<void> {
    try {
      if (this.treesBehind && !this.backfilling) {
        this.backfilling = true;
        await this.backfillTrees().finally(() => {
          this.backfilling = false;
        });
      }
      for (const t of await tenantsWithStoredRecords(this.db)) this.due.add(t);
      await this.drain();
    } catch (err) {
      this.log.error({ err }, "committer sweep failed");
    }
  }

  /**
   * Gives every log committed before the RFC 9162 tree existed its tree, a bounded batch per
   * transaction; a log whose lock another process holds is tried again next sweep.
   */
  private async backfillTrees(): Promise<void> {
    const behind = await logsBehind(this.db);
    let busy = false;
    for (const tenantId of behind) {
      for (;;) {
        if (this.stopped) return;
        const r = await this.db.transaction((tx) => backfillTree(tx, tenantId, BACKFILL_BATCH));
        if (r.busy) busy = true;
        if (r.count > 0) this.log.info({ tenantId, entries: r.count }, "RFC 9162 tree backfilled");
        if (r.busy || r.count < BACKFILL_BATCH) break;
      }
    }
    if (!busy && (await logsBehind(this.db)).length === 0) this.treesBehind = false;
  }

  private drain(): Promise<void> {
    this.running ??= (async () => {
      // Settle the assignment first: a body that finished synchronously would clear
      // `running` before `??=` stored it, leaving a finished promise there for good.
      await Promise.resolve();
      try {
        while (this.due.size > 0 && !this.stopped) {
          const [tenantId] = this.due;
          this.due.delete(tenantId as string);
          await this.commitTenant(tenantId as string);
        }
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /**
   * Commits the tenancy's STORED records, batch after batch. While this process signs the log
   * the records wait for the signing to end (`flush`: it is awaited; else the log is due again
   * once it has ended), not for a refused try: under load a seal holds the lock for much of each
   * second, and each try is three statements.
   */
  private async commitTenant(tenantId: string, flush = false): Promise<void> {
    if (this.held(tenantId)) return;
    for (;;) {
      const signing = this.signingUnderWay(tenantId);
      if (signing && flush) await signing;
      else if (signing) return this.commitAfter(tenantId, signing);
      try {
        const r = await this.db.transaction((tx) =>
          commitBatch(tx, tenantId, this.gen, BATCH, this.fresh, {
            frontiers: this.frontiers,
            ...(this.mayAppend ? { mayAppend: this.mayAppend } : {}),
            indexFacts: this.indexFacts !== undefined,
          }),
        );
        if (r.frontier) this.frontiers.remember(tenantId, r.frontier);
        if (r.facts) this.indexFacts?.remember(tenantId, r.facts);
        // The lock's holder may have read the log's records before the ones that woke us were
        // stored, and then nobody would commit them before the next sweep: try again shortly.
        if (r.busy) {
          // Woken again while it was tried: it waits for the timer all the same.
          this.due.delete(tenantId);
          if (!this.stopped) {
            this.retry.add(tenantId);
            this.schedule();
          }
          return;
        }
        if (r.count > 0) this.onCommitted(tenantId);
        if (r.count < BATCH) return;
      } catch (err) {
        this.log.error({ err, tenantId }, "commit batch failed; it will be retried");
        return;
      }
    }
  }

  /** The log is due again once this process's signing of it has ended, and not before. */
  private commitAfter(tenantId: string, signing: Promise<unknown>): void {
    this.due.delete(tenantId);
    if (this.afterSigning.has(tenantId)) return;
    this.afterSigning.add(tenantId);
    void signing.then(() => {
      this.afterSigning.delete(tenantId);
      if (this.stopped) return;
      this.due.add(tenantId);
      void this.drain();
    });
  }

  /** Commits everything stored now. */
  async flushAll(): Promise<void> {
    await this.running;
    for (const t of await tenantsWithStoredRecords(this.db)) await this.commitTenant(t, true);
  }

  /** Stops taking wake-ups and commits everything already stored. */
  async stop(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    for (const t of await tenantsWithStoredRecords(this.db).catch(() => [])) await this.commitTenant(t, true);
    this.stopped = true;
  }
}
