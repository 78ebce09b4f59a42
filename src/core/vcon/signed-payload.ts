import { gunzipSync } from "node:zlib";
import { VconError } from "../../formats/vcon/errors.js";
import { isRecord } from "./unsigned-check.js";

const B64URL = /^[A-Za-z0-9_-]*$/;
/** Bound on a decompressed payload, so a small gzip bomb cannot exhaust memory. */
const MAX_INFLATED = 64 * 1024 * 1024;

/** The unsigned vCon a JWS (general serialization) vCon carries in its `payload`. */
export function decodeSignedPayload(payload: unknown): Record<string, unknown> {
  if (typeof payload !== "string" || !B64URL.test(payload))
    throw new VconError("VCON_SIGNED_PAYLOAD", "signed vCon payload must be a base64url string");
  let bytes: Buffer = Buffer.from(payload, "base64url");
  try {
    // application/vcon+gzip payloads are gzip-compressed before signing.
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes, { maxOutputLength: MAX_INFLATED });
    const inner: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    if (isRecord(inner)) return inner;
  } catch (err) {
    throw new VconError("VCON_SIGNED_PAYLOAD", `signed vCon payload is not JSON: ${(err as Error).message}`);
  }
  throw new VconError("VCON_SIGNED_PAYLOAD", "signed vCon payload is not a JSON object");
}
