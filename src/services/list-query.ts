import { badRequest } from "../core/api/api-error.js";
import type { AttributeCondition } from "../store/attribute-sql.js";

/** Dotted attribute filters of a query, grouped so a repeated key matches any of its values. */
export function attributeConditions(
  pairs: Array<[string, string]>,
  prefixes: Record<string, string>,
): AttributeCondition[] {
  const byKey = new Map<string, AttributeCondition>();
  for (const [rawKey, value] of pairs) {
    const dot = rawKey.indexOf(".");
    if (dot < 0) continue;
    const column = prefixes[rawKey.slice(0, dot)];
    if (!column) continue;
    const negated = rawKey.endsWith("!");
    const name = rawKey.slice(dot + 1, negated ? -1 : undefined);
    if (!name) throw badRequest(`query key ${rawKey} names no attribute`);
    if (negated && value !== "*")
      throw badRequest(`query key ${rawKey} takes only the value * (missing or empty)`);
    const kind = negated ? "missing" : value === "*" ? "present" : "eq";
    const key = `${column}\u0000${name}\u0000${kind}`;
    const existing = byKey.get(key);
    if (existing && kind === "eq") existing.values.push(value);
    else if (!existing) byKey.set(key, { column, name, kind, values: kind === "eq" ? [value] : [] });
  }
  return [...byKey.values()];
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

/** An RFC 3339 timestamp query value, 400 when malformed. */
export function timeParam(pairs: Array<[string, string]>, key: string): Date | undefined {
  const v = scalar(pairs, key);
  if (v === undefined || v === "") return undefined;
  const d = new Date(v);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(v) || Number.isNaN(d.getTime()))
    throw badRequest(`${key} must be an RFC 3339 timestamp`);
  return d;
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
