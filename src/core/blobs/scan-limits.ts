/** Thresholds of the built-in scanner; every one is a reason to call an upload bad. */
export interface ScanLimits {
  /** Most entries a ZIP (each nested one counted on its own) may hold. */
  maxZipEntries: number;
  /** Most bytes an archive may declare or inflate to, nested archives included. */
  maxUncompressedBytes: number;
  /** Largest uncompressed-to-compressed ratio, applied once the output passes `ratioFloorBytes`. */
  maxCompressionRatio: number;
  /** Below this much output a high ratio is harmless (a page of zeros compresses 1000:1). */
  ratioFloorBytes: number;
  /** How many archives deep a ZIP may nest inside another. */
  maxZipDepth: number;
  /** Most bytes inflated to look inside entries; past it, later entries are judged by headers only. */
  maxInspectBytes: number;
}

/** Defaults: generous for real documents, far below what a bomb needs. */
export const DEFAULT_SCAN_LIMITS: ScanLimits = {
  maxZipEntries: 10_000,
  maxUncompressedBytes: 1 << 30,
  maxCompressionRatio: 100,
  ratioFloorBytes: 8 << 20,
  maxZipDepth: 3,
  maxInspectBytes: 64 << 20,
};
