import { createHash } from "node:crypto";

/** Trie key of a log entry: SHA-256(0x00 ‖ logId ‖ appId). */
export function trieKey(logId: Uint8Array | string, appId: Uint8Array | string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(Uint8Array.of(0)).update(logId).update(appId).digest());
}
