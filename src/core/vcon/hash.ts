import { createHash } from "node:crypto";
import type { VconDocument } from "./parse.js";
import { type HashMode, hashPreimage } from "./preimage.js";

export { HASH_MODES, type HashMode, hashPreimage, isHashMode } from "./preimage.js";

/** SHA-256 of the vCon under `mode`, lowercase hex (the template's `payload`). */
export function hashVcon(doc: VconDocument, mode: HashMode): string {
  return createHash("sha256").update(hashPreimage(doc, mode)).digest("hex");
}
