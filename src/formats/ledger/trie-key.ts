import { utf8 } from "../crypto/bytes.js";
import { sha256 } from "../crypto/sha256.js";

const bytes = (v: Uint8Array | string) => (typeof v === "string" ? utf8(v) : v);

/** Trie key of a log entry: SHA-256(0x00 ‖ logId ‖ appId). */
export function trieKey(logId: Uint8Array | string, appId: Uint8Array | string): Uint8Array {
  return sha256(Uint8Array.of(0), bytes(logId), bytes(appId));
}
