import { badRequest } from "../../core/api/api-error.js";
import { parseAttributeQuery } from "../../core/filters/index.js";
import { type AttributeTable, addAttributeFilter, addHiddenAwareFilter } from "../../store/attribute-sql.js";
import { Where } from "../../store/sql.js";

/**
 * Asset attributes a caller may not read everywhere it looks: under these prefixes, a filter on
 * a name hidden in some tenancies reads the attribute as missing on those tenancies' rows (so a
 * value never matches there, and "absent" always does): the answer and its count are what the
 * caller would get from the attributes it can read, and tell nothing of a hidden value.
 */
export interface AttributeGuard {
  hiddenIn(name: string): string[];
  prefixes: readonly string[];
}

/**
 * Adds the dotted attribute filters of a query (prefix → the table's jsonb column) to a WHERE clause.
 * Returns the filters that ask for values (not presence) alone, as their own WHERE, when there
 * are any: only the attribute indexes can serve it, which is what `fewMatches` needs. That
 * probe may find rows where the value is hidden; the clause itself never keeps them.
 */
export function addAttributeFilters(
  w: Where,
  pairs: Array<[string, string]>,
  table: AttributeTable,
  indexed = true,
  guard?: AttributeGuard,
): Where | undefined {
  const { columns } = table;
  const { filters } = parseAttributeQuery(pairs, Object.keys(columns));
  for (const f of filters) {
    const column = columns[f.prefix] as string;
    const hidden = guard?.prefixes.includes(f.prefix) ? guard.hiddenIn(f.name) : [];
    if (hidden.length && guard) addHiddenAwareFilter(w, f, column, indexed, hidden, table.tenantColumn);
    else addAttributeFilter(w, f, column, indexed);
  }
  const byValue = filters.filter((f) => f.kind === "match" && f.values.length > 0 && !f.present);
  if (byValue.length === 0) return undefined;
  const probe = new Where();
  for (const f of byValue) addAttributeFilter(probe, f, columns[f.prefix] as string);
  return probe;
}

/** The last value of a scalar query key. */
export function scalar(pairs: Array<[string, string]>, key: string): string | undefined {
  return pairs.filter(([k]) => k === key).at(-1)?.[1];
}

/** A scalar enum query value, 400 for anything else. */
export function enumParam<T extends string>(
  pairs: Array<[string, string]>,
  key: string,
  allowed: readonly T[],
): T | undefined {
  const v = scalar(pairs, key);
  if (v === undefined || v === "") return undefined;
  if (!(allowed as readonly string[]).includes(v))
    throw badRequest(`${key} must be one of ${allowed.join(", ")}`);
  return v as T;
}

/** All values of a key that may repeat (each must be allowed). */
export function enumList<T extends string>(
  pairs: Array<[string, string]>,
  key: string,
  allowed: readonly T[],
): T[] {
  const values = pairs.filter(([k]) => k === key).map(([, v]) => v);
  for (const v of values)
    if (!(allowed as readonly string[]).includes(v))
      throw badRequest(`${key} must be one of ${allowed.join(", ")}`);
  return values as T[];
}

/**
 * A time a request names (`name` says where), 400 when it does not parse or falls before the
 * year 1, which the database cannot hold (year 0 was a 500).
 */
export function requestTime(value: string, name: string): Date {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw badRequest(`${name} must be an RFC 3339 timestamp`);
  if (d.getUTCFullYear() < 1) throw badRequest(`${name} must be a time from the year 1 on`);
  return d;
}

/** An RFC 3339 timestamp query value, 400 when malformed. */
export function timeParam(pairs: Array<[string, string]>, key: string): Date | undefined {
  const v = scalar(pairs, key);
  if (v === undefined || v === "") return undefined;
  if (!/^\d{4}-\d{2}-\d{2}T/.test(v)) throw badRequest(`${key} must be an RFC 3339 timestamp`);
  return requestTime(v, key);
}

export const CONFIRMATION_STATUSES = [
  "PENDING",
  "STORED",
  "COMMITTED",
  "CONFIRMED",
  "UNEQUIVOCAL",
  "FAILED",
] as const;
export const TRUST_ORDER = ["COMMITTED", "CONFIRMED", "UNEQUIVOCAL"] as const;
export const PROOF_MECHANISMS = ["MERKLE_LOG", "SIMPLE_HASH"] as const;

/** Every value of a key that may repeat, or undefined when it is absent. */
export function valuesOf(pairs: Array<[string, string]>, key: string): string[] | undefined {
  const values = pairs.filter(([k]) => k === key).map(([, v]) => v);
  return values.length ? values : undefined;
}
