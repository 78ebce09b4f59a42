import { claimsRegisteredStatement, recordTreeLeaves } from "../receipts/tree-leaf.js";
import type { BundleFailureCode } from "./failures.js";
import { bytes } from "./parse.js";

// A registered statement's record carries the statement it records (docs/evidence-bundle.md):
// the log's RFC 9162 tree holds only the statement's payload hash, so without the statement the
// record's place in that tree cannot be checked, and with another statement it would be wrong.

/**
 * What the statement a record carries showed: `bytes` for a registered statement's, bound to its
 * record; `unavailable`, the exporter's reason, for one whose statement the bundle says it lacks.
 */
export type StatementCheck =
  | { ok: true; bytes?: Uint8Array; unavailable?: string; detail?: string }
  | { ok: false; failure: BundleFailureCode; detail: string };

const mismatch = (detail: string): StatementCheck => ({ ok: false, failure: "STATEMENT_MISMATCH", detail });

/** Past this many characters the exporter's reason is cut: it is the bundle's words, not ours. */
const REASON_MAX = 300;

/** Characters that would break a verdict's line: C0 and C1 controls, the Unicode line and paragraph separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const LINE_BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** An exporter's reason as a verdict may quote it: on one line, bounded. */
function quoted(reason: unknown): string {
  const line = String(reason).replace(LINE_BREAKING, " ").trim();
  return line.length > REASON_MAX ? `${line.slice(0, REASON_MAX)}…` : line || "no reason given";
}

/**
 * The statement a bundled record carries, held against the record: a registered statement's
 * record must carry the very statement whose digest its signed `scitt_statement_sha256` is and
 * whose headers make its signed attributes, or say why it cannot (`unavailable`, the exporter's
 * words: what is then left unchecked is named); any other record carries none.
 */
export function checkStatement(
  record: Record<string, unknown>,
  carried: unknown,
  unavailable?: unknown,
): StatementCheck {
  const registered = claimsRegisteredStatement(record);
  if (!registered) {
    if (carried !== undefined)
      return mismatch("the bundle carries a statement for a record that is not a registered statement");
    if (unavailable !== undefined)
      return mismatch(
        "the bundle says the statement of a record that is not a registered statement is unavailable",
      );
    return { ok: true };
  }
  if (unavailable !== undefined) {
    if (carried !== undefined) return mismatch("the bundle carries the statement and says it is unavailable");
    const reason = quoted(unavailable);
    return {
      ok: true,
      unavailable: reason,
      detail: `the bundle does not carry the statement (the exporter: ${reason}): the record, with the statement's digest, is proven by its MMR receipt; the statement's content and its RFC 9162 leaf are not`,
    };
  }
  if (typeof carried !== "string")
    return {
      ok: false,
      failure: "STATEMENT_MISSING",
      detail:
        "the record is a registered statement and the bundle does not carry the statement: its RFC 9162 leaf, the statement's payload hash, cannot be checked",
    };
  let statement: Uint8Array;
  try {
    statement = bytes(carried);
  } catch {
    return mismatch("the statement it carries is not base64");
  }
  const leaves = recordTreeLeaves(record, statement);
  if (!leaves.ok) return mismatch(leaves.reason);
  const kid = leaves.statement?.issuer.kid;
  return {
    ok: true,
    bytes: statement,
    detail: `the registered statement it carries is the one the record names (its digest), issuer key ${kid || "unnamed"}`,
  };
}
