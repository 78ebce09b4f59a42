import type { SealRow } from "./seals.js";

/** Reads a log's latest seal (`getSeal` on the context's reads). */
export type ReadLatestSeal = (tenantId: string) => Promise<SealRow | undefined>;

/**
 * A seal read this recently is still the latest as far as a receipt goes: a receipt over a seal
 * that is up to this old is the answer the request would have had that much earlier, and every
 * seal covering the record verifies it.
 */
const SEAL_FRESH_MS = 200;

interface Reading {
  /** Where the read started in the order of reads and requests (`LatestSeals.clock`). */
  order: number;
  read: Promise<SealRow | undefined>;
}

/**
 * Each log's latest seal as receipts take it: kept `freshMs`, and read once for all the requests
 * that find it stale together. Each request read it for itself before: at every expiry, every
 * receipt request then in flight (64 under `pair`) sent the same statement, ~7 % of a receipt's
 * requests, each a round trip. A seal that does not cover the record is read again, by a read
 * that started after the request did, before the record is called not yet sealed.
 */
export class LatestSeals {
  private readonly kept = new Map<string, { seal: SealRow; at: number }>();
  private readonly reading = new Map<string, Reading>();
  /** Orders reads and requests: a read that started after a request saw every seal made before it. */
  private clock = 0;

  constructor(
    private readonly freshMs = SEAL_FRESH_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The log's latest seal when it covers `mmrIndex` (its MMR size is past it); undefined while none does. */
  async covering(tenantId: string, mmrIndex: number, read: ReadLatestSeal): Promise<SealRow | undefined> {
    const asked = ++this.clock;
    const kept = this.kept.get(tenantId);
    if (kept && this.now() - kept.at < this.freshMs && kept.seal.mmr_size > mmrIndex) return kept.seal;
    for (;;) {
      const r = this.reading.get(tenantId) ?? this.start(tenantId, read);
      const seal = await r.read;
      if (seal && seal.mmr_size > mmrIndex) return seal;
      // That read may have started before the seal covering the record was made: only a read that
      // started after this request can say there is none yet.
      if (r.order > asked) return undefined;
    }
  }

  /** Forgets every kept seal (a read in flight still answers those waiting for it). */
  clear(): void {
    this.kept.clear();
  }

  private start(tenantId: string, read: ReadLatestSeal): Reading {
    const at = this.now();
    const r: Reading = {
      order: ++this.clock,
      // Settled here before any waiting request resumes, so that one asking again finds no stale read in flight.
      read: read(tenantId).then(
        (seal) => {
          this.reading.delete(tenantId);
          if (seal) this.kept.set(tenantId, { seal, at });
          return seal;
        },
        (err: unknown) => {
          this.reading.delete(tenantId);
          throw err;
        },
      ),
    };
    this.reading.set(tenantId, r);
    return r;
  }
}
