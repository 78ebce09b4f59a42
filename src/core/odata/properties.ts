import type { ODataColumnType, ODataIntegerField, ODataProperty, ODataTextField } from "./ast.js";

const TEXT_FIELDS: readonly ODataTextField[] = [
  "event_type",
  "origin_tenant",
  "created_by",
  "ledger_entry/idtimestamp",
  "ledger_entry/content_hash",
];
const INTEGER_FIELDS: readonly ODataIntegerField[] = ["created_at", "ledger_entry/index"];

/** Every property name a filter may use (attributes as `attributes/<name>`). */
export const PROPERTY_NAMES = [...TEXT_FIELDS, ...INTEGER_FIELDS, "trails", "attributes/<name>"] as const;

/** True for the integer-typed fields. */
export function isIntegerField(field: string): field is ODataIntegerField {
  return (INTEGER_FIELDS as readonly string[]).includes(field);
}

/** True for the string-typed fields. */
export function isTextField(field: string): field is ODataTextField {
  return (TEXT_FIELDS as readonly string[]).includes(field);
}

/** The column type each property needs in the caller's column map. */
export function columnTypeOf(property: ODataProperty): ODataColumnType {
  if (property === "trails") return "text[]";
  if (property === "attributes") return "jsonb-text";
  return isIntegerField(property) ? "bigint" : "text";
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The canonical decimal form of a 64-bit integer literal, or undefined when out of range. */
export function canonicalInt64(digits: string): string | undefined {
  if (!/^-?[0-9]{1,25}$/.test(digits)) return undefined;
  const n = BigInt(digits);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n.toString();
}
