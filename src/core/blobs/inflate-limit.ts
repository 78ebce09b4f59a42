import type { ScanLimits } from "./scan-limits.js";

/**
 * Most bytes a container of `compressedBytes` may expand to: the ratio limit, but never
 * below the floor where ratios stop mattering nor above the absolute limit.
 */
export function expansionCap(compressedBytes: number, limits: ScanLimits): number {
  const byRatio = Math.max(limits.ratioFloorBytes, compressedBytes * limits.maxCompressionRatio);
  return Math.min(limits.maxUncompressedBytes, byRatio);
}

/** Node reports an output cap reached as a RangeError (ERR_BUFFER_TOO_LARGE). */
export const isOutputCapError = (error: unknown) =>
  error instanceof RangeError || (error as { code?: unknown })?.code === "ERR_BUFFER_TOO_LARGE";
