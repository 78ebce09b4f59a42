import { verdictLabel } from "../verify/house.js";
import type { VerdictCode } from "../verify/index.js";
import type { Trail } from "./console-trail.js";

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
): { ok: boolean; text: string; code: VerdictCode | undefined } {
  const n = t.steps.length;
  const worst = SEVERITY.find((c) => t.steps.some((x) => x.receipt.code === c)) ?? "cannot-evaluate";
  const failing = t.steps.filter((x) => !x.receipt.ok);
  if (failing.length === 0)
    return {
      ok: true,
      code: worst,
      text: `${verdictLabel(worst)}: ${n} record(s) of ${t.title}, every receipt valid under ${pinned ? "your trust roots" : "the keys this service serves"}`,
    };
  const first = failing[0]?.receipt;
  if (worst === "policy-failed" && first && !first.ok)
    return {
      ok: false,
      code: worst,
      text: `${verdictLabel(worst)}: ${failing.length} of ${n} record(s) do not meet your trust roots (${first.reason})`,
    };
  return {
    ok: false,
    code: worst === "tampered" ? worst : undefined,
    text: `${failing.length} of ${n} record(s) without a verified receipt (not sealed yet, or failed: see each record)`,
  };
}
