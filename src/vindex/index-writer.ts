import type { Logger } from "pino";
import type { Queryable } from "../store/drivers/db.js";
import type { IndexBasis } from "./index-states.js";
import type { Ed25519Signing } from "./output-log.js";
import { type IndexParts, reviseIndex, type SignedLogHead } from "./revision.js";

// A refused index is tried again after this long, not at every seal (the operator has been told).
const RETRY_MS = 60_000;

/**
 * How often a busy log's index is revised: at most once in this long at its seals, and by the
 * indexer (src/workers/index-catch-up.ts) at this period for what the seals left. A revision
 * hashes the paths from every key it changed to the root, and the paths of keys changed together
 * share their upper nodes: at 60,000 keys, a revision of 5,000 changes hashes ~5.6 nodes a key
 * where one of 1,000 hashed ~7.9 (docs/complete-trails.md, "When the index is revised").
 */
export function revisionIntervalMs(sealIntervalMs: number): number {
  return Math.max(1000, 5 * sealIntervalMs);
}

/**
 * The seal's hand into the index: each seal revises it in the seal's transaction, inside a
 * savepoint, so that an index that cannot be revised (its rows rewritten, a fault) costs the index
 * its revision and never the log its seal. The index then catches up at a later seal.
 */
export class IndexWriter {
  /** Revisions refused or failed since the process started, for `/metrics`. */
  failures = 0;
  readonly #retryAt = new Map<string, number>();
  /** When each log's index was last revised by this process. */
  readonly #revisedAt = new Map<string, number>();

  constructor(
    readonly parts: IndexParts,
    private readonly log: Logger,
    /** A seal revises a log's index only when its last revision is at least this old (0: every seal). */
    private readonly intervalMs = 0,
  ) {}

  /**
   * Revises the tenancy's index up to the checkpoint the seal just signed, unless it was revised
   * within the interval (the indexer then takes what this seal leaves); never throws.
   */
  async atSeal(
    tx: Queryable,
    tenantId: string,
    head: SignedLogHead,
    keys: Ed25519Signing,
    basis: IndexBasis | undefined,
  ): Promise<void> {
    if ((this.#revisedAt.get(tenantId) ?? Number.NEGATIVE_INFINITY) + this.intervalMs > Date.now()) return;
    await this.revise(tx, tenantId, head, keys, basis);
  }

  /** Revises the tenancy's index up to `head`, a checkpoint it signed; never throws. */
  async revise(
    tx: Queryable,
    tenantId: string,
    head: SignedLogHead,
    keys: Ed25519Signing,
    basis: IndexBasis | undefined,
  ): Promise<void> {
    if ((this.#retryAt.get(tenantId) ?? 0) > Date.now()) return;
    await tx.query("savepoint vindex_revision");
    try {
      await reviseIndex(tx, tenantId, head, this.parts, keys, basis);
      await tx.query("release savepoint vindex_revision");
      this.#retryAt.delete(tenantId);
      this.#revisedAt.set(tenantId, Date.now());
    } catch (err) {
      await tx.query("rollback to savepoint vindex_revision");
      this.parts.states.forget(tenantId);
      this.failures++;
      this.#retryAt.set(tenantId, Date.now() + RETRY_MS);
      this.log.error(
        { log: `tenant/${tenantId}`, err },
        `the index was not revised at log size ${head.size}; the log is sealed on, the index tried again in ${RETRY_MS / 1000} s`,
      );
    }
  }

  /** Whether the tenancy's index was refused or failed at its last try (lookups say so). */
  failing(tenantId: string): boolean {
    return this.#retryAt.has(tenantId);
  }
}
