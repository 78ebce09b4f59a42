import type { VerdictCode } from "../verify/index.js";
import type { Trail } from "./console-trail.js";
import { receiptLook, type VerdictLook, verdictWord } from "./verdict-look.js";

/** Severity of a receipt's verdict, worst first: the trail's verdict is its worst record's. */
const SEVERITY: VerdictCode[] = [
  "tampered",
  "policy-failed",
  "cannot-evaluate",
  "self-consistent-unpinned",
  "verified",
];

/** The trail's verdict line: its worst receipt's code, and how many records it holds. */
export function trailVerdict(
  t: Trail,
  pinned: boolean,
): { ok: boolean; text: string; verdict: VerdictLook | undefined } {
  const n = t.steps.length;
  const worst = SEVERITY.find((c) => t.steps.some((x) => x.receipt.code === c)) ?? "cannot-evaluate";
  const verdict = receiptLook(worst);
  const word = verdictWord(verdict);
  const failing = t.steps.filter((x) => !x.receipt.ok);
  if (failing.length === 0)
    return {
      ok: true,
      verdict,
      text: `${word}: ${n} record(s) of ${t.title}, every receipt valid under ${pinned ? "your trust roots" : "the keys this service serves"}`,
    };
  const first = failing[0]?.receipt;
  if (worst === "policy-failed" && first && !first.ok)
    return {
      ok: false,
      verdict,
      text: `${word}: ${failing.length} of ${n} record(s) do not meet your trust roots (${first.reason})`,
    };
  return {
    ok: false,
    verdict: worst === "tampered" ? verdict : undefined,
    text: `${failing.length} of ${n} record(s) without a verified receipt (not sealed yet, or failed: see each record)`,
  };
}
