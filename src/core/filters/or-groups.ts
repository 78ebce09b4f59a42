import type { QueryErrorCode } from "../../errors/api-error.js";
import { QueryError } from "../../errors/query-error.js";
import { assertStorableText } from "./text-guard.js";

/** Bounds on the `[{or: [string]}]` lists of policies, so hostile bodies stay cheap. */
const OR_GROUP_LIMITS = { groups: 100, entries: 100, length: 1024 } as const;

/**
 * Validates the `[{or: [string, ...]}, ...]` shape (outer AND, inner OR) and parses every
 * entry, naming the field, the index and the offending string on failure.
 */
export function parseOrGroups<T>(
  value: unknown,
  field: string,
  code: QueryErrorCode,
  parseEntry: (entry: string) => T | string,
): Array<{ or: T[] }> {
  if (!Array.isArray(value)) throw new QueryError(code, `${field} must be a list of {"or": [...]} objects`);
  if (value.length > OR_GROUP_LIMITS.groups)
    throw new QueryError(code, `${field} has more than ${OR_GROUP_LIMITS.groups} entries`);
  return value.map((group: unknown, i) => {
    const at = `${field}[${i}]`;
    if (typeof group !== "object" || group === null || Array.isArray(group))
      throw new QueryError(code, `${at} must be an object {"or": [...]}`);
    const or: unknown = (group as Record<string, unknown>).or;
    if (!Array.isArray(or) || or.length === 0)
      throw new QueryError(code, `${at}.or must be a non-empty list of strings`);
    if (or.length > OR_GROUP_LIMITS.entries)
      throw new QueryError(code, `${at}.or has more than ${OR_GROUP_LIMITS.entries} entries`);
    return { or: or.map((entry: unknown, j) => parseOne(entry, `${at}.or[${j}]`, code, parseEntry)) };
  });
}

function parseOne<T>(
  entry: unknown,
  at: string,
  code: QueryErrorCode,
  parseEntry: (entry: string) => T | string,
): T {
  if (typeof entry !== "string") throw new QueryError(code, `${at} must be a string`);
  if (entry.length > OR_GROUP_LIMITS.length)
    throw new QueryError(code, `${at} is longer than ${OR_GROUP_LIMITS.length} characters`);
  assertStorableText(entry, at, code);
  const parsed = parseEntry(entry);
  // The entry parser answers a string to say why the entry is malformed.
  if (typeof parsed === "string") throw new QueryError(code, `${at} ${JSON.stringify(entry)}: ${parsed}`);
  return parsed;
}
