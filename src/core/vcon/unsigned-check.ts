import { VconError } from "../../formats/vcon/errors.js";

const LISTS = ["parties", "dialog", "analysis", "attachments"] as const;
const TIMES = ["created_at", "updated_at"] as const;

/** True for a uuid usable in keys and URLs: 1..128 characters, no spaces or control characters. */
export function isUuidText(v: unknown): v is string {
  if (typeof v !== "string" || v.length === 0 || v.length > 128 || /\s/.test(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return false;
  }
  return true;
}

/** True for a plain JSON object (not an array, not null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Checks the known fields of an unsigned vCon. Unknown fields are always accepted; a known field
 * of the wrong shape that would break processing throws, anything else is returned as a finding.
 */
export function checkUnsigned(o: Record<string, unknown>, where = ""): string[] {
  const issues: string[] = [];
  const uuid = o.uuid;
  if (uuid === undefined) issues.push(`${where}uuid is missing`);
  else if (!isUuidText(uuid))
    throw new VconError("VCON_INVALID", `${where}uuid must be a non-empty string without spaces`);
  for (const key of LISTS) {
    const list = o[key];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) throw new VconError("VCON_INVALID", `${where}${key} must be an array`);
    list.forEach((item, i) => {
      if (!isRecord(item)) issues.push(`${where}${key}[${i}] is not an object`);
    });
  }
  for (const key of TIMES) {
    const t = o[key];
    if (t !== undefined && t !== null && typeof t !== "string") issues.push(`${where}${key} is not a string`);
  }
  if (o.created_at === undefined) issues.push(`${where}created_at is missing`);
  return issues;
}
