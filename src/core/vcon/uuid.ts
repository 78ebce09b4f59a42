import { VconError } from "../../formats/vcon/errors.js";
import type { VconDocument } from "./parse.js";
import { isRecord, isUuidText } from "./unsigned-check.js";

function signatureHeaderUuid(value: Record<string, unknown>): string | undefined {
  const first: unknown = Array.isArray(value.signatures) ? value.signatures[0] : undefined;
  const uuid = isRecord(first) && isRecord(first.header) ? first.header.uuid : undefined;
  return isUuidText(uuid) ? uuid : undefined;
}

/**
 * The vCon's uuid: `uuid` (unsigned), the payload's `uuid` (signed; the signature header's as a
 * fallback), `unprotected.uuid` (encrypted).
 */
export function vconUuid(doc: VconDocument): string | undefined {
  if (doc.form === "encrypted") {
    const u = isRecord(doc.value.unprotected) ? doc.value.unprotected.uuid : undefined;
    return isUuidText(u) ? u : undefined;
  }
  const u = doc.unsigned?.uuid;
  if (isUuidText(u)) return u;
  return doc.form === "signed" ? signatureHeaderUuid(doc.value) : undefined;
}

/** The vCon's uuid, or a VCON_NO_UUID error. */
export function requireVconUuid(doc: VconDocument): string {
  const uuid = vconUuid(doc);
  if (!uuid) throw new VconError("VCON_NO_UUID", `${doc.form} vCon has no uuid`);
  return uuid;
}
