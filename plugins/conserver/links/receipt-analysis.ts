import { ConserverError } from "../errors.js";
import type { VconDocument } from "../vcon.js";
import { isLosslessObject, type LosslessObject, stringifyLossless, toLossless } from "../vcon.js";

/** What the scitt link records about one registration. */
export interface ReceiptRecord {
  entry_id: string;
  cose_receipt: string;
  vcon_operation: string;
  subject: string;
  vcon_hash: string;
}

/**
 * The vCon with a `scitt_receipt` analysis appended (as the Python scitt link stores it; the body is
 * a JSON-encoded string with `encoding: "json"`, vcon-server's rule on write). Key order and
 * number lexemes of the rest are kept. Only an unsigned vCon can take it.
 */
export function withReceiptAnalysis(doc: VconDocument, record: ReceiptRecord, vendor: string): string {
  if (doc.form !== "unsigned")
    throw new ConserverError("VCON_INVALID", `a receipt cannot be added to a ${doc.form} vCon`);
  const tree: LosslessObject = new Map(doc.tree);
  const current = tree.get("analysis");
  const list = Array.isArray(current) ? [...current] : [];
  const entry = toLossless({
    type: "scitt_receipt",
    dialog: 0,
    vendor,
    encoding: "json",
    body: JSON.stringify(record),
  });
  if (isLosslessObject(entry)) list.push(entry);
  tree.set("analysis", list);
  return stringifyLossless(tree);
}
