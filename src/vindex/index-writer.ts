import type { Logger } from "pino";
import type { Queryable } from "../store/drivers/db.js";
import type { IndexBasis } from "./index-states.js";
import type { Ed25519Signing } from "./output-log.js";
import { type IndexParts, reviseIndex, type SignedLogHead } from "./revision.js";

// A refused index is tried again after this long, not at every seal (the operator has been told).
const RETRY_MS = 60_000;

/**
 * The seal's hand into the index: each seal revises it in the seal's transaction, inside a
 * savepoint, so that an index that cannot be revised (its rows rewritten, a fault) costs the index
 * its revision and never the log its seal. The index then catches up at a later seal.
 */
export class IndexWriter {
  /** Revisions refused or failed since the process started, for `/metrics`. */
  failures = 0;
  readonly #retryAt = new Map<string, number>();

  constructor(
    readonly parts: IndexParts,
    private readonly log: Logger,
  ) {}

  /** Revises the tenancy's index up to the checkpoint the seal just signed; never throws. */
  async atSeal(
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
