/** What each trust level means, in words an auditor can act on (the console and /verify show them). */
export const TRUST_WORDS: Record<string, string> = {
  PENDING: "Accepted; some of its records are not yet in the log.",
  STORED: "Accepted and saved by the service, but not yet in its log: nothing proves it yet.",
  COMMITTED: "Appended to the tenancy's Merkle log at a fixed position; no signed seal covers it yet.",
  CONFIRMED:
    "In the log, under a seal the service signed: its receipt proves the record is there and has not changed.",
  UNEQUIVOCAL:
    "Confirmed, and the seal is anchored in a block of the archivist chain: the service cannot show anyone a different log without it being detectable.",
};

/** The level's explanation, or a plain note for a level this page does not know. */
export const trustWords = (level: string): string =>
  TRUST_WORDS[level] ?? `Trust level "${level || "unknown"}" is not one this page knows.`;
