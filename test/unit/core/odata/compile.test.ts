import { describe, expect, it } from "vitest";
import type { ODataExpr } from "../../../../src/core/odata/ast.js";
import { compileODataFilter } from "../../../../src/core/odata/compile.js";
import { parseODataFilter } from "../../../../src/core/odata/parser.js";
import { COLUMNS } from "./columns.js";

function neutral(e: ODataExpr): ODataExpr {
  switch (e.kind) {
    case "and":
    case "or":
      return { kind: e.kind, items: e.items.map(neutral) };
    case "not":
      return { kind: "not", item: neutral(e.item) };
    case "any":
      return { ...e, values: e.values.map(() => "v") };
    case "compare":
      return {
        ...e,
        target: e.target.kind === "attribute" ? { kind: "attribute", name: "n" } : e.target,
        value: e.value === null ? null : "0",
      };
  }
}

const compiled: Array<[string, string, unknown[]]> = [
  ["event_type eq 'x'", "(e.event_type = $3::text)", ["x"]],
  ["event_type ne 'x'", "(e.event_type IS DISTINCT FROM $3::text)", ["x"]],
  ["event_type gt 'x'", '(e.event_type > $3::text COLLATE "C")', ["x"]],
  ["created_by eq null", "(e.created_by IS NULL)", []],
  ["origin_tenant ne null", "(e.origin_tenant IS NOT NULL)", []],
  ["created_at le 17", "(e.created_at <= $3::bigint)", ["17"]],
  ["ledger_entry/index ne -1", "(e.mmr_index IS DISTINCT FROM $3::bigint)", ["-1"]],
  ["ledger_entry/idtimestamp lt '01'", '(e.idtimestamp < $3::text COLLATE "C")', ["01"]],
  ["attributes/colour eq 'red'", "((e.attributes->>$3::text) = $4::text)", ["colour", "red"]],
  ["attributes/n ne 5", "((e.attributes->>$3::text) IS DISTINCT FROM $4::text)", ["n", "5"]],
  ["attributes/n eq null", "((e.attributes->>$3::text) IS NULL)", ["n"]],
  ["trails/any(t: t eq 'a')", "(e.trails && ARRAY[$3::text]::text[])", ["a"]],
  ["trails/any(t: t eq 'a' or t eq 'b')", "(e.trails && ARRAY[$3::text, $4::text]::text[])", ["a", "b"]],
  [
    "not (event_type eq 'a' or created_at ge 2) and trails/any(x: x eq 't')",
    "((NOT coalesce(((e.event_type = $3::text) OR (e.created_at >= $4::bigint)), false)) AND (e.trails && ARRAY[$5::text]::text[]))",
    ["a", "2", "t"],
  ],
];

describe("compileODataFilter", () => {
  it.each(compiled)("compiles %s", (text, sql, params) => {
    expect(compileODataFilter(parseODataFilter(text), COLUMNS, 3)).toEqual({ sql, params });
  });

  const hostile = [
    "event_type eq '''; DROP TABLE events; --'",
    "attributes/x eq '\" OR 1=1 --'",
    "trails/any(t: t eq '$1') or event_type eq 'e.trails'",
    "attributes/a eq 'Ω‮ 🙂 ﷽ \u200b'",
    "event_type eq '\\' or created_at eq 1",
  ];
  it.each(hostile)("keeps every literal of %s out of the SQL text", (text) => {
    const ast = parseODataFilter(text);
    const { sql, params } = compileODataFilter(ast, COLUMNS, 1);
    expect(sql).not.toMatch(/'[^']/);
    expect(sql).not.toMatch(/DROP|OR 1=1|Ω|🙂|\\/);
    expect(params.length).toBeGreaterThan(0);
    // The SQL text is a function of the shape alone: neutral literals give the same text.
    expect(compileODataFilter(neutral(ast), COLUMNS, 1).sql).toBe(sql);
  });

  it("numbers placeholders from firstParam", () => {
    const ast = parseODataFilter("event_type eq 'a' and created_by eq 'b'");
    expect(compileODataFilter(ast, COLUMNS, 10).sql).toBe(
      "((e.event_type = $10::text) AND (e.created_by = $11::text))",
    );
    expect(() => compileODataFilter(ast, COLUMNS, 0)).toThrow(RangeError);
  });

  it("refuses a column map whose types do not fit the properties", () => {
    const ast = parseODataFilter("created_at eq 1");
    const wrong = { ...COLUMNS, created_at: { sql: "e.created_at", type: "text" as const } };
    expect(() => compileODataFilter(ast, wrong, 1)).toThrow(/created_at must be of type bigint/);
  });

  it("refuses a hand-built AST with a non-integer value for an integer field", () => {
    const ast = {
      kind: "compare",
      op: "eq",
      target: { kind: "field", field: "created_at" },
      value: "1; x",
    } as const;
    expect(() => compileODataFilter(ast, COLUMNS, 1)).toThrow(TypeError);
  });
});
