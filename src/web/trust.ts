/** What each trust level means, in words an auditor can act on (the console and /verify show them). */
export const TRUST_WORDS: Record<string, string> = {
  PENDING: "Accepted; some of its records are not yet in the log.",
  STORED: "Accepted and saved by the service, but not yet in its log: nothing proves it yet.",
  COMMITTED: "Appended to the tenancy's Merkle log at a fixed position; no signed seal covers it yet.",
  CONFIRMED:
    "In the log, under a seal the service signed: its receipt proves the record is there and has not changed.",
  UNEQUIVOCAL:
    "Confirmed, its seal anchored in a block of the service's own archivist chain and, where the service names witnesses, cosigned by their quorum. Only a checkpoint cosigned by witnesses you trust rules out a split view: without witnesses the same operator runs the log and the chain, and could show others a different log. This status is the service's claim; a verdict reports what was proven.",
};

/** The level's explanation, or a plain note for a level this page does not know. */
export const trustWords = (level: string): string =>
  TRUST_WORDS[level] ?? `Trust level "${level || "unknown"}" is not one this page knows.`;
