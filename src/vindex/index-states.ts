import type { ApiError } from "../errors/api-error.js";
import * as rfc9162 from "../formats/rfc9162/index.js";
import type { SignedBasis } from "../keys/signed-basis.js";
import type { Queryable } from "../store/drivers/db.js";
import { indexCheckpoint, latestRevision, type RevisionRow } from "../store/ledger/vindex.js";
import { FilingsBroken, indexFilingsBetween } from "../store/ledger/vindex-filings.js";
import { revisionInclusion, revisionLeaf } from "./output-log.js";
import { IndexEntryRefused, TenantIndex } from "./tenant-index.js";

/** What checks a stored revision against the service's keys: the log guard's signed basis. */
export type IndexBasis = Pick<SignedBasis, "checkpointRoot" | "refuse" | "signedCheckpoint">;

/** A tenancy's index as its newest signed revision has it. */
export interface CurrentIndex {
  index: TenantIndex;
  /** The newest revision, undefined before the first. */
  revision: RevisionRow | undefined;
  /** The output tree's root at `index.revisions`, as its signed checkpoint gives it. */
  outputRoot: Uint8Array | undefined;
}

interface Held {
  index: TenantIndex;
  outputRoot: Uint8Array | undefined;
  /** True while a revision is being made: until it is signed, the memory may be ahead of the rows. */
  dirty: boolean;
}

const revisionOf = (r: RevisionRow) => ({
  logSize: r.log_size,
  logRoot: r.log_root,
  indexRoot: r.index_root,
  vrfKey: r.vrf_key,
});

/**
 * Each tenancy's index in this process's memory, believed only as far as the signed revisions go:
 * its rows (`vindex_filings`) are read into it, and the root they give must be
 * the root of the newest revision, whose output checkpoint verifies with the service's log key and
 * includes it. Rows rewritten by a database writer give another root: the index is refused (and
 * nothing is signed over it) until they are put back or the index rebuilt from the log.
 */
export class IndexStates {
  readonly #held = new Map<string, Held>();
  readonly #perRevision = new Map<string, { seq: number; value: Promise<unknown> }>();

  /**
   * What is the same for every lookup at a log's revision `seq` (its signed checkpoints and the
   * revision's inclusion proof), read once; a failed read is read again by the next lookup.
   */
  perRevision<T>(tenantId: string, seq: number, read: () => Promise<T>): Promise<T> {
    const kept = this.#perRevision.get(tenantId);
    if (kept?.seq === seq) return kept.value as Promise<T>;
    const value = read();
    value.catch(() => this.#perRevision.delete(tenantId));
    if (this.#perRevision.size >= 10_000) this.#perRevision.clear();
    this.#perRevision.set(tenantId, { seq, value });
    return value;
  }

  constructor(private readonly basis: IndexBasis | undefined) {}

  /** The tenancy's index at its newest signed revision (read into memory as far as needed). */
  async current(db: Queryable, tenantId: string): Promise<CurrentIndex> {
    const latest = await latestRevision(db, tenantId);
    const held = this.#held.get(tenantId);
    if (!latest) {
      if (held && held.index.revisions === 0 && !held.dirty) return { ...held, revision: undefined };
      const fresh: Held = { index: new TenantIndex(), outputRoot: undefined, dirty: false };
      this.#held.set(tenantId, fresh);
      return { ...fresh, revision: undefined };
    }
    const count = latest.seq + 1;
    if (
      held &&
      !held.dirty &&
      held.index.revisions === count &&
      rfc9162.sameHash(held.index.root(), latest.index_root)
    )
      return { index: held.index, outputRoot: held.outputRoot, revision: latest };
    this.#held.delete(tenantId);
    const outputRoot = await this.#signedRevision(db, latest);
    // Memory ahead of the rows (a revision whose transaction did not commit) starts over from them.
    const usable =
      held && !held.dirty && held.index.revisions <= count && held.index.logSize <= latest.log_size;
    const index = usable ? held.index : new TenantIndex();
    await this.#readRows(db, tenantId, index, latest.log_size);
    index.revisions = count;
    if (!rfc9162.sameHash(index.root(), latest.index_root))
      throw this.#refuse(
        tenantId,
        `its rows do not give the index root this service signed at log size ${latest.log_size}`,
      );
    this.#held.set(tenantId, { index, outputRoot, dirty: false });
    return { index, outputRoot, revision: latest };
  }

  /** A revision is being made on this index: until `signed`, the memory may be ahead of the rows. */
  changing(tenantId: string): void {
    const held = this.#held.get(tenantId);
    if (held) held.dirty = true;
  }

  /** The revision made by `changing` was signed: the output tree's root at `index.revisions`. */
  signed(tenantId: string, outputRoot: Uint8Array): void {
    const held = this.#held.get(tenantId);
    if (held) Object.assign(held, { outputRoot, dirty: false });
  }

  /** Forgets the tenancy's index (its revision failed): the next use reads the rows again. */
  forget(tenantId: string): void {
    this.#held.delete(tenantId);
  }

  /** The output root of the newest revision's checkpoint, when it verifies and includes the revision. */
  async #signedRevision(db: Queryable, latest: RevisionRow): Promise<Uint8Array> {
    const tenantId = latest.tenant_id;
    const size = latest.seq + 1;
    const cp = await indexCheckpoint(db, tenantId, size);
    if (!cp) throw this.#refuse(tenantId, `no signed index checkpoint of ${size} revisions is stored`);
    const root = this.basis ? await this.basis.checkpointRoot("index_checkpoint", cp, "vindex") : cp.root;
    const proof = await revisionInclusion(db, tenantId, latest.seq, size);
    if (!rfc9162.verifyInclusion(latest.seq, size, revisionLeaf(revisionOf(latest)), proof, root))
      throw this.#refuse(
        tenantId,
        `its revision at log size ${latest.log_size} is not the one this service signed`,
      );
    return root;
  }

  /** Files the rows' entries up to `size` into `index`; rows no revision wrote are refused. */
  async #readRows(db: Queryable, tenantId: string, index: TenantIndex, size: number): Promise<void> {
    try {
      index.file(await indexFilingsBetween(db, tenantId, index.logSize, size), size);
    } catch (err) {
      // A failed read is not the rows' fault; rows that are not an index's filings are.
      if (!(err instanceof FilingsBroken || err instanceof IndexEntryRefused)) throw err;
      throw this.#refuse(tenantId, `its rows are not what its revisions filed (${err.message})`);
    }
  }

  #refuse(tenantId: string, reason: string): ApiError | Error {
    const why = `the index of log tenant/${tenantId}: ${reason}`;
    return this.basis ? this.basis.refuse("index_checkpoint", tenantId, why) : new Error(why);
  }
}
