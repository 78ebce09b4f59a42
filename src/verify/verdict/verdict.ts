/**
 * The one verdict every check of this project gives (library, CLI, /verify, the console, the
 * evidence route): a closed set of codes a caller can branch on, what was proven and by whose
 * keys, what was not checked even on success, and which shown values nobody signed.
 */

/**
 * - `verified`: every check passed against trust roots the caller gave (pinned keys, a policy).
 * - `self-consistent-unpinned`: every check passed, but only against keys the evidence brought
 *   with it; anyone can make such evidence. Compare `trust.fingerprints` out of band.
 * - `policy-failed`: the evidence is self-consistent but does not meet the caller's trust roots
 *   or policy (signed by a key not pinned, too few witness cosignatures, too old, …).
 * - `tampered`: the evidence contradicts itself: a signature, a proof or a hash does not verify,
 *   a record is not of the subject the evidence names.
 * - `cannot-evaluate`: nothing could be judged: unreadable input, an unknown format version,
 *   nothing to check, the service not answering.
 *
 * @example
 * ```ts
 * const trusted = (code: VerdictCode) => code === VERDICT_CODES[0]; // "verified"
 * ```
 */
export const VERDICT_CODES = [
  "verified",
  "self-consistent-unpinned",
  "policy-failed",
  "tampered",
  "cannot-evaluate",
] as const;

/**
 * @example
 * ```ts
 * const label: Record<VerdictCode, string> = { verified: "ok", tampered: "forged", "self-consistent-unpinned": "unpinned", "policy-failed": "policy", "cannot-evaluate": "?" };
 * ```
 */
export type VerdictCode = (typeof VERDICT_CODES)[number];

/**
 * The CLI's exit status for each code (documented in docs/verification.md).
 *
 * @example
 * ```ts
 * process.exitCode = EXIT_CODES[verifyBundle(bundle, roots).code];
 * ```
 */
export const EXIT_CODES: Readonly<Record<VerdictCode, number>> = {
  verified: 0,
  tampered: 1,
  "self-consistent-unpinned": 2,
  "policy-failed": 3,
  "cannot-evaluate": 4,
};

/**
 * The CLI's exit status for a command line that cannot run as typed (an unknown command or
 * option, a missing argument, a malformed value), whatever the command: sysexits' EX_USAGE,
 * apart from every verdict's status (0–4) and from a command's own failure (1).
 */
export const USAGE_EXIT_CODE = 64;

/**
 * How far the proven facts are anchored outside the evidence: `unpinned` (only the evidence's
 * own keys), `pinned` (keys the caller gave), `witnessed` (a checkpoint cosigned by a quorum of
 * witnesses the caller trusts, the only level that excludes a split view).
 */
export type TrustLevel = "unpinned" | "pinned" | "witnessed";

const LEVELS: readonly TrustLevel[] = ["unpinned", "pinned", "witnessed"];
export const trustAtLeast = (level: TrustLevel, min: TrustLevel): boolean =>
  LEVELS.indexOf(level) >= LEVELS.indexOf(min);

/** A key the evidence was checked with, for comparison out of band. */
export interface KeyFingerprint {
  /** "cose-key" (seals, receipts), "cose-key-set" (the whole key set as served), "log-key" (checkpoints). */
  kind: "cose-key" | "cose-key-set" | "log-key";
  /** The kid, or the log key's name. */
  id: string;
  /** `sha256:<hex>` of the key (SPKI DER) or of the key set's bytes; the vkey itself for a log key. */
  fingerprint: string;
  /** Whether the caller pinned it. */
  pinned: boolean;
}

/**
 * @example
 * ```ts
 * const v: VerificationVerdict = verifyBundle(bundle, roots);
 * console.log(v.code, v.summary);
 * ```
 */
export interface VerificationVerdict {
  code: VerdictCode;
  /** `code === "verified"`. */
  ok: boolean;
  exit_code: number;
  /** One line for people, starting with the code's label. */
  summary: string;
  trust: {
    level: TrustLevel;
    /** The trust roots the caller gave, in words ("--keys k.cbor", "policy p.txt: 2 of 3 witnesses"). */
    roots: string[];
    fingerprints: KeyFingerprint[];
  };
  /** Why it is not verified (empty when verified). */
  problems: string[];
  /** What was not checked, even when verified. */
  not_checked: string[];
  /** Values shown alongside the verdict that no signature covers. */
  unsigned: string[];
}

const LABEL: Record<VerdictCode, string> = {
  verified: "VERIFIED",
  "self-consistent-unpinned": "SELF-CONSISTENT, KEYS NOT PINNED",
  "policy-failed": "POLICY FAILED",
  tampered: "TAMPERED",
  "cannot-evaluate": "CANNOT EVALUATE",
};

/** The verdict code as the pages and the CLI print it. */
export const verdictLabel = (code: VerdictCode): string => LABEL[code];

/** What every check that reads a log leaves unproven, whatever its outcome. */
const SPLIT_VIEW_UNCHECKED =
  "split view: no checkpoint cosigned by witnesses you trust was checked, so the service could show others a different log";

/**
 * The verdict from what was found: any contradiction is `tampered`, then an unmet trust root or
 * requirement is `policy-failed`, then no trust root at all is `self-consistent-unpinned`.
 */
export function judge(parts: {
  tampered: string[];
  policy: string[];
  cannotEvaluate?: string[];
  pinned: boolean;
  level: TrustLevel;
  roots: string[];
  fingerprints: KeyFingerprint[];
  notChecked: string[];
  unsigned: string[];
  /** What was proven, for the summary when it holds. */
  proven: string;
}): VerificationVerdict {
  const cannot = parts.cannotEvaluate ?? [];
  const code: VerdictCode = parts.tampered.length
    ? "tampered"
    : cannot.length
      ? "cannot-evaluate"
      : parts.policy.length
        ? "policy-failed"
        : parts.pinned
          ? "verified"
          : "self-consistent-unpinned";
  const problems = [...parts.tampered, ...cannot, ...parts.policy];
  const level: TrustLevel = code === "verified" ? parts.level : "unpinned";
  const notChecked = [...parts.notChecked];
  if (level !== "witnessed" && !notChecked.includes(SPLIT_VIEW_UNCHECKED))
    notChecked.push(SPLIT_VIEW_UNCHECKED);
  let summary: string;
  if (code === "verified")
    summary = `${LABEL[code]} (${level === "witnessed" ? "witnessed" : "keys pinned, not witnessed"}): ${parts.proven}`;
  else if (code === "self-consistent-unpinned")
    summary = `${LABEL[code]}: ${parts.proven}, but only under keys the evidence or the service itself brought; compare the fingerprints out of band, or give trust roots of your own (--keys, --log-key, --witness or --policy; a policy on /verify)`;
  else summary = `${LABEL[code]}: ${problems[0] ?? "no reason given"}`;
  return {
    code,
    ok: code === "verified",
    exit_code: EXIT_CODES[code],
    summary,
    trust: { level, roots: parts.roots, fingerprints: parts.fingerprints },
    problems,
    not_checked: notChecked,
    unsigned: parts.unsigned,
  };
}

/** A verdict for input that could not be judged at all (unreadable, unknown version, no answer). */
export function cannotEvaluate(reason: string): VerificationVerdict {
  return judge({
    tampered: [],
    policy: [],
    cannotEvaluate: [reason],
    pinned: false,
    level: "unpinned",
    roots: [],
    fingerprints: [],
    notChecked: [],
    unsigned: [],
    proven: "",
  });
}
