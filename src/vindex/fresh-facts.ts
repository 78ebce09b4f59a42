import type { IndexFacts } from "../store/ledger/vindex.js";

// Past this many facts kept for all logs together (~150 bytes each), every run starts over: a
// log whose index is refused or far behind, or revised by another process, must not hold memory
// for ever, and reads its facts from the database when it is revised, as after a restart.
const KEPT = 200_000;

/** What the index's map function reads of a record the committer just appended. */
export interface CommittedRecord {
  kind: "asset_event" | "event";
  /** An asset event's asset, undefined for an asset-free event. */
  asset_id?: string;
  /** The attributes its leaf signs: an asset event's `event_attributes`, an asset-free event's `attributes`. */
  attributes: Readonly<Record<string, unknown>>;
}

const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

/**
 * A committed record's facts as `indexFactsBetween` reads them back from its row: the subject
 * when a string, and an asset-free event's `scitt_issuer` when a string.
 */
export function factsOfRecord(r: CommittedRecord, leafIndex: number): IndexFacts {
  return {
    leaf_index: leafIndex,
    kind: r.kind,
    asset_id: r.kind === "asset_event" ? (r.asset_id ?? null) : null,
    subject: text(r.attributes.subject),
    issuer: r.kind === "event" ? text(r.attributes.scitt_issuer) : null,
  };
}

/**
 * The facts of the entries this process's committer appended, after their transaction
 * committed: a revision takes its facts from here when they cover its range, and reads the
 * database otherwise (entries appended by another process, a period's, or before a restart).
 * Only a contiguous run per log is kept, what a revision has moved past is dropped, and all of
 * it past `KEPT` facts.
 */
export class FreshIndexFacts {
  readonly #runs = new Map<string, IndexFacts[]>();
  /** Facts kept, over every run. */
  #kept = 0;

  /** Entries appended and committed, in log order. */
  remember(tenantId: string, facts: readonly IndexFacts[]): void {
    const first = facts[0];
    if (!first) return;
    if (this.#kept + facts.length > KEPT) {
      this.#runs.clear();
      this.#kept = 0;
      if (facts.length > KEPT) return;
    }
    const run = this.#runs.get(tenantId);
    const next = run && run.length > 0 ? (run.at(-1) as IndexFacts).leaf_index + 1 : undefined;
    if (run && next === first.leaf_index) for (const f of facts) run.push(f);
    else {
      this.#kept -= run?.length ?? 0;
      this.#runs.set(tenantId, [...facts]);
    }
    this.#kept += facts.length;
  }

  /** The facts of entries [from, to) when all are kept, else undefined; drops those below `from`. */
  between(tenantId: string, from: number, to: number): IndexFacts[] | undefined {
    const run = this.#runs.get(tenantId);
    const start = run?.[0]?.leaf_index;
    if (!run || start === undefined) return undefined;
    if (from > start) this.#kept -= run.splice(0, Math.min(from - start, run.length)).length;
    const first = run[0]?.leaf_index;
    if (first !== from || from + run.length < to) return undefined;
    return run.slice(0, to - from);
  }
}
