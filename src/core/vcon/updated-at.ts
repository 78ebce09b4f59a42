import type { VconDocument } from "./parse.js";

/**
 * The time of this vCon version, by the rule the template and the Python link share:
 * `updated_at`, else `created_at` (both read from the unsigned vCon, i.e. the JWS payload
 * when signed). Undefined when neither is a non-empty string, and always for the encrypted form
 * (its times are inside the ciphertext). The caller decides what to send then: see
 * `TimestampFallback` in template.ts (the Python link would send null, which this service refuses).
 */
export function vconUpdatedAt(doc: VconDocument): string | undefined {
  for (const key of ["updated_at", "created_at"]) {
    const v = doc.unsigned?.[key];
    if (typeof v === "string" && v.trim() !== "") return v;
  }
  return undefined;
}
