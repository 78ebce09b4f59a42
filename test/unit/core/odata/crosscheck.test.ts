import { describe, expect, it } from "vitest";
import type { ODataExpr, ODataOp } from "../../../../src/core/odata/ast.js";
import { compileODataFilter } from "../../../../src/core/odata/compile.js";
import { evaluateODataFilter, type ODataRecord } from "../../../../src/core/odata/evaluate.js";
import { formatODataFilter } from "../../../../src/core/odata/format.js";
import { parseODataFilter } from "../../../../src/core/odata/parser.js";
import { runSql } from "../../../helpers/mini-sql.js";
import { type Rng, rng } from "../../../helpers/random.js";
import { COLUMNS, row } from "./columns.js";

const STRINGS = ["a", "b", "A", "é", "😀", "", "a'b", "ab", "\uFFFF"];
const INTS = ["-1", "0", "1", "5", "9223372036854775807"];
const NAMES = ["x", "y", "__proto__", "constructor"];
const OPS: ODataOp[] = ["eq", "ne", "gt", "ge", "lt", "le"];
const TEXT_FIELDS = [
  "event_type",
  "origin_tenant",
  "created_by",
  "ledger_entry/idtimestamp",
  "ledger_entry/content_hash",
] as const;

function expr(r: Rng, depth: number): ODataExpr {
  const k = depth > 3 ? r.int(2) : r.int(5);
  if (k === 0) return compare(r);
  if (k === 1)
    return {
      kind: "any",
      field: "trails",
      values: [...new Set([r.pick(STRINGS), ...(r.chance(0.3) ? [r.pick(STRINGS)] : [])])],
    };
  if (k === 2) return { kind: "not", item: expr(r, depth + 1) };
  const items = Array.from({ length: 2 + r.int(2) }, () => expr(r, depth + 1));
  return { kind: k === 3 ? "and" : "or", items };
}

function compare(r: Rng): ODataExpr {
  const op = r.pick(OPS);
  const nullable = (v: string) => ((op === "eq" || op === "ne") && r.chance(0.15) ? null : v);
  const k = r.int(3);
  if (k === 0)
    return {
      kind: "compare",
      op,
      target: { kind: "field", field: r.pick(TEXT_FIELDS) },
      value: nullable(r.pick(STRINGS)),
    };
  if (k === 1)
    return {
      kind: "compare",
      op,
      target: { kind: "field", field: r.pick(["created_at", "ledger_entry/index"] as const) },
      value: nullable(r.pick(INTS)),
    };
  const value = r.chance(0.3) ? r.pick(["5", "true", "null", '{"a": 1}']) : r.pick(STRINGS);
  return { kind: "compare", op, target: { kind: "attribute", name: r.pick(NAMES) }, value: nullable(value) };
}

function record(r: Rng): ODataRecord {
  const maybe = <T>(v: T) => (r.chance(0.2) ? null : v);
  const attrs: Record<string, unknown> = {};
  for (const n of NAMES)
    if (r.chance(0.6)) attrs[n] = r.pick<unknown>([...STRINGS, 5, true, null, { a: 1 }, "5", "true"]);
  return {
    trails: maybe(STRINGS.filter(() => r.chance(0.3))),
    event_type: maybe(r.pick(STRINGS)),
    origin_tenant: maybe(r.pick(STRINGS)),
    created_by: maybe(r.pick(STRINGS)),
    created_at: maybe(r.pick(INTS)),
    ledger_entry: maybe({
      index: maybe(r.pick(INTS)),
      idtimestamp: maybe(r.pick(STRINGS)),
      content_hash: maybe(r.pick(STRINGS)),
    }),
    attributes: maybe(attrs),
  };
}

describe("compile and evaluate agree (seeded random filters and records)", () => {
  it("gives the same answer on 3000 filter/record pairs, under SQL's three-valued logic", () => {
    const r = rng(20240531);
    let trues = 0;
    for (let i = 0; i < 3000; i++) {
      const ast = expr(r, 0);
      const rec = record(r);
      const { sql, params } = compileODataFilter(ast, COLUMNS, 1 + (i % 7));
      const expected = evaluateODataFilter(ast, rec);
      if (expected) trues++;
      const got = runSql(sql, params, 1 + (i % 7), row(rec));
      if (got !== expected)
        expect({ filter: formatODataFilter(ast), rec, got }).toEqual({
          filter: formatODataFilter(ast),
          rec,
          got: expected,
        });
    }
    // Both outcomes are well represented, so agreement is not trivial.
    expect(trues).toBeGreaterThan(600);
    expect(trues).toBeLessThan(2400);
  });

  it("formats every random filter to text that parses back to the same AST", () => {
    const r = rng(7);
    for (let i = 0; i < 1000; i++) {
      const ast = expr(r, 0);
      const text = formatODataFilter(ast);
      const back = parseODataFilter(text);
      expect(compileODataFilter(back, COLUMNS, 1)).toEqual(compileODataFilter(ast, COLUMNS, 1));
    }
  });
});
