import { ApiError } from "../errors/api-error.js";

/**
 * Evidence bundles being built, per tenancy, up to a limit: one bundle reads a whole trail
 * (hundreds of reads), so a tenancy asking for many at once is answered 429 with
 * Retry-After rather than let its exports hold the service (and other tenancies' requests).
 */
export class ExportSlots {
  private readonly running = new Map<string, number>();

  constructor(private readonly perTenancy: number) {}

  /** Runs `work` in one of the tenancy's slots; 429 when they are all taken. */
  async run<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
    const n = this.running.get(tenantId) ?? 0;
    if (n >= this.perTenancy)
      throw new ApiError(
        "rate_limited",
        `this tenancy is already building ${n} evidence bundle(s), its limit; try again when one is done`,
        [],
        { "Retry-After": "2" },
      );
    this.running.set(tenantId, n + 1);
    try {
      return await work();
    } finally {
      const left = (this.running.get(tenantId) ?? 1) - 1;
      if (left > 0) this.running.set(tenantId, left);
      else this.running.delete(tenantId);
    }
  }
}
