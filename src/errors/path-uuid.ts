import { isUuid } from "../formats/ids.js";
import { notFound } from "./api-error.js";

/** A path uuid that is not a UUID is a 404 of that resource, never a 500. */
export function pathUuid(value: string | undefined, what: string): string {
  if (value === undefined || !isUuid(value)) throw notFound(what);
  return value.toLowerCase();
}
