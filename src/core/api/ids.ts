import { notFound } from "./api-error.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a canonical textual UUID (any version). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A path uuid that is not a UUID is a 404 of that resource, never a 500. */
export function pathUuid(value: string | undefined, what: string): string {
  if (value === undefined || !UUID.test(value)) throw notFound(what);
  return value.toLowerCase();
}

/** RFC 3339 UTC with milliseconds and `Z`. */
export function isoTime(value: Date | string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  // Rows carry Dates already: copying each (three per event, 150 per list page) only made garbage.
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
