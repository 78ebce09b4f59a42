import { nodeSha256 } from "../../core/node/crypto.js";
import { sealRoot } from "../../formats/ledger/trust.js";

/**
 * Roots of the seals read lately, by MMR size. The events of a page, or of a conserver's burst of
 * look-ups, are covered by a few seals: each root was decoded from base64, concatenated and hashed
 * once per row (~1 % of the service's main thread under the conserver load, issue 59). A kept root
 * is used only for the very same peaks (compared string by string), so a seal row that changed,
 * or another log's seal of the same size, is hashed anew.
 */
const recent = new Map<number, { peaks: string[]; root: string }>();
const KEPT = 256;

function samePeaks(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `sealRoot(peaks)` with node:crypto's hash, computed once for the same peaks at the same size. */
export function coveringSealRoot(mmrSize: number, peaks: string[]): string {
  const kept = recent.get(mmrSize);
  if (kept && samePeaks(kept.peaks, peaks)) return kept.root;
  const root = sealRoot(peaks, nodeSha256);
  if (recent.size >= KEPT) recent.clear();
  recent.set(mmrSize, { peaks: [...peaks], root });
  return root;
}
