import { createHash } from "node:crypto";

/** SHA-256 hex of bytes (node:crypto in the CLI, the noble shim in the browser). */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
