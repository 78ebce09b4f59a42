import { parseAttributeQuery } from "../../core/filters/index.js";
import type { ListAttributeFilter } from "../../core/filters/list-spec.js";
import { badRequest } from "../../errors/api-error.js";

/**
 * The attribute filters of a query over the given prefixes. A filter under `guardedPrefix` (the
 * asset's attributes) on a name the caller may not read everywhere it looks reads that attribute
 * as missing in the tenancies where it is hidden (`hiddenIn`): the answer and its count are what
 * the caller would get from the attributes it can read, and tell nothing of a hidden value.
 */
export function listFilters(
  pairs: Array<[string, string]>,
  prefixes: readonly string[],
  guardedPrefix?: string,
  guard?: { hiddenIn(name: string): string[] },
): ListAttributeFilter[] {
  return parseAttributeQuery(pairs, prefixes).filters.map((f) => {
    const hidden = guard && f.prefix === guardedPrefix ? guard.hiddenIn(f.name) : [];
    return hidden.length ? { ...f, hiddenIn: hidden } : f;
  });
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
