import type { VerdictCode, VerificationVerdict } from "../verify/index.js";
import { verdictLabel } from "../verify/index.js";

/** A verdict as the pages show it: its code and how far what it proves is anchored. */
export interface VerdictLook {
  code: VerdictCode;
  level: VerificationVerdict["trust"]["level"];
}

/** The colours of the verdict vocabulary (site.css gives each its look). */
type VerdictTone = "good" | "warn" | "bad" | "neutral";

/**
 * One colour per verdict on every page (docs/verification.md): green only for `verified` at
 * `witnessed`, the one level that rules out a split view; amber for what holds under keys alone,
 * pinned or not; red for evidence that contradicts itself or fails the caller's roots; neutral
 * for `cannot-evaluate`, which judged nothing and so says nothing against the evidence.
 */
function verdictTone(v: VerdictLook): VerdictTone {
  if (v.code === "verified") return v.level === "witnessed" ? "good" : "warn";
  if (v.code === "self-consistent-unpinned") return "warn";
  if (v.code === "cannot-evaluate") return "neutral";
  return "bad";
}

/**
 * The verdict's word, as the verifier's summary begins (`judge` in src/verify/verdict): VERIFIED
 * always says its level, so a verdict the console shows reads as the CLI and /verify print it.
 */
export function verdictWord(v: VerdictLook): string {
  if (v.code !== "verified") return verdictLabel(v.code);
  return `${verdictLabel(v.code)} (${v.level === "witnessed" ? "witnessed" : "keys pinned, not witnessed"})`;
}

/** Marks an element with a verdict (code, level and tone, which the stylesheet colours), or none. */
export function markVerdict(target: HTMLElement, v: VerdictLook | undefined): void {
  if (!v) {
    delete target.dataset.code;
    delete target.dataset.level;
    delete target.dataset.tone;
    return;
  }
  target.dataset.code = v.code;
  target.dataset.level = v.level;
  target.dataset.tone = verdictTone(v);
}

/**
 * A receipt's verdict in the console: a receipt is checked under service keys, never against a
 * checkpoint witnesses cosigned, so what it verifies is at `pinned` at most.
 */
export const receiptLook = (code: VerdictCode): VerdictLook => ({
  code,
  level: code === "verified" ? "pinned" : "unpinned",
});
