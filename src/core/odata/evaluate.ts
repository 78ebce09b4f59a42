import { attributeText, compareCodePoints } from "../filters/jsonb-text.js";
import type { ODataExpr, ODataIntegerField, ODataOp, ODataTextField } from "./ast.js";
import { isIntegerField } from "./properties.js";

/** An asset-free event as the filter sees it (the API shape; integers as number, bigint or string). */
export interface ODataRecord {
  trails?: readonly string[] | null;
  event_type?: string | null;
  origin_tenant?: string | null;
  created_by?: string | null;
  created_at?: number | bigint | string | null;
  ledger_entry?: {
    index?: number | bigint | string | null;
    idtimestamp?: string | null;
    content_hash?: string | null;
  } | null;
  attributes?: Readonly<Record<string, unknown>> | null;
}

/** In-memory twin of `compileODataFilter`: the same answer the SQL gives for this record. */
export function evaluateODataFilter(expr: ODataExpr, record: ODataRecord): boolean {
  switch (expr.kind) {
    case "and":
      return expr.items.every((e) => evaluateODataFilter(e, record));
    case "or":
      return expr.items.some((e) => evaluateODataFilter(e, record));
    case "not":
      return !evaluateODataFilter(expr.item, record);
    case "any":
      return (record.trails ?? []).some((t) => expr.values.includes(t));
    case "compare": {
      const { target, op, value } = expr;
      if (target.kind === "attribute")
        return compareText(attributeText(record.attributes, target.name), op, value);
      if (isIntegerField(target.field)) return compareInteger(integerOf(record, target.field), op, value);
      return compareText(textOf(record, target.field), op, value);
    }
  }
}

function textOf(record: ODataRecord, field: ODataTextField): string | null {
  switch (field) {
    case "ledger_entry/idtimestamp":
      return record.ledger_entry?.idtimestamp ?? null;
    case "ledger_entry/content_hash":
      return record.ledger_entry?.content_hash ?? null;
    default:
      return record[field] ?? null;
  }
}

function integerOf(record: ODataRecord, field: ODataIntegerField): bigint | null {
  const raw = field === "created_at" ? record.created_at : record.ledger_entry?.index;
  if (raw === null || raw === undefined) return null;
  if (typeof raw === "bigint") return raw;
  if (typeof raw === "number") return Number.isSafeInteger(raw) ? BigInt(raw) : null;
  return /^-?[0-9]+$/.test(raw) ? BigInt(raw) : null;
}

/** Mirrors the SQL: a missing value fails every comparison except `ne` and `eq null`. */
function compareText(actual: string | null, op: ODataOp, expected: string | null): boolean {
  if (expected === null) return op === "eq" ? actual === null : actual !== null;
  if (op === "ne") return actual !== expected;
  if (actual === null) return false;
  return holds(op, compareCodePoints(actual, expected));
}

function compareInteger(actual: bigint | null, op: ODataOp, expected: string | null): boolean {
  if (expected === null) return op === "eq" ? actual === null : actual !== null;
  const e = BigInt(expected);
  if (op === "ne") return actual !== e;
  if (actual === null) return false;
  return holds(op, actual < e ? -1 : actual > e ? 1 : 0);
}

function holds(op: ODataOp, order: number): boolean {
  switch (op) {
    case "eq":
      return order === 0;
    case "ne":
      return order !== 0;
    case "gt":
      return order > 0;
    case "ge":
      return order >= 0;
    case "lt":
      return order < 0;
    case "le":
      return order <= 0;
  }
}
