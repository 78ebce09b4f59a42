/** The outcome of a scan, as the blob metadata records it. */
export interface ScanResult {
  status: "SCANNED_OK" | "SCANNED_BAD";
  /** Short words: why it is bad, or what was found clean. */
  reason: string;
}

export const scannedOk = (reason = "no threat found"): ScanResult => ({ status: "SCANNED_OK", reason });
export const scannedBad = (reason: string): ScanResult => ({ status: "SCANNED_BAD", reason });
