import { describe, expect, it } from "vitest";
import type { ODataExpr, ODataIntegerField, ODataTextField } from "../../../../src/core/odata/ast.js";
import { formatODataFilter } from "../../../../src/core/odata/format.js";
import { parseODataFilter } from "../../../../src/core/odata/parser.js";
import { QueryError } from "../../../../src/errors/query-error.js";

const field = (f: ODataTextField | ODataIntegerField) => ({ kind: "field", field: f }) as const;
const attr = (name: string) => ({ kind: "attribute", name }) as const;

const parses: Array<[string, ODataExpr]> = [
  ["event_type eq 'x'", { kind: "compare", op: "eq", target: field("event_type"), value: "x" }],
  ["event_type eq 'it''s'", { kind: "compare", op: "eq", target: field("event_type"), value: "it's" }],
  ["event_type eq ''''", { kind: "compare", op: "eq", target: field("event_type"), value: "'" }],
  ["event_type eq ''", { kind: "compare", op: "eq", target: field("event_type"), value: "" }],
  ["origin_tenant ne null", { kind: "compare", op: "ne", target: field("origin_tenant"), value: null }],
  ["created_by EQ NULL", { kind: "compare", op: "eq", target: field("created_by"), value: null }],
  [
    "created_at ge 1700000000000",
    { kind: "compare", op: "ge", target: field("created_at"), value: "1700000000000" },
  ],
  ["created_at lt -007", { kind: "compare", op: "lt", target: field("created_at"), value: "-7" }],
  [
    "ledger_entry/index gt 9223372036854775807",
    { kind: "compare", op: "gt", target: field("ledger_entry/index"), value: "9223372036854775807" },
  ],
  [
    "ledger_entry/idtimestamp le '018f'",
    { kind: "compare", op: "le", target: field("ledger_entry/idtimestamp"), value: "018f" },
  ],
  [
    "ledger_entry/content_hash eq 'ab'",
    { kind: "compare", op: "eq", target: field("ledger_entry/content_hash"), value: "ab" },
  ],
  ["attributes/colour eq 'red'", { kind: "compare", op: "eq", target: attr("colour"), value: "red" }],
  ["attributes/n eq 5", { kind: "compare", op: "eq", target: attr("n"), value: "5" }],
  ["attributes/ok ne TRUE", { kind: "compare", op: "ne", target: attr("ok"), value: "true" }],
  ["attributes/größe.v-2 eq 'x'", { kind: "compare", op: "eq", target: attr("größe.v-2"), value: "x" }],
  ["trails/any(t: t eq 'a')", { kind: "any", field: "trails", values: ["a"] }],
  ["trails/any(x:x eq 'a' or (x eq 'b' or x eq 'a'))", { kind: "any", field: "trails", values: ["a", "b"] }],
  [
    "event_type eq 'a' or event_type eq 'b' and not created_at gt 1",
    {
      kind: "or",
      items: [
        { kind: "compare", op: "eq", target: field("event_type"), value: "a" },
        {
          kind: "and",
          items: [
            { kind: "compare", op: "eq", target: field("event_type"), value: "b" },
            { kind: "not", item: { kind: "compare", op: "gt", target: field("created_at"), value: "1" } },
          ],
        },
      ],
    },
  ],
  [
    "(event_type eq 'a' or event_type eq 'b') and trails/any(t: t eq 'z')",
    {
      kind: "and",
      items: [
        {
          kind: "or",
          items: [
            { kind: "compare", op: "eq", target: field("event_type"), value: "a" },
            { kind: "compare", op: "eq", target: field("event_type"), value: "b" },
          ],
        },
        { kind: "any", field: "trails", values: ["z"] },
      ],
    },
  ],
  [
    "  \tnot (((event_type eq '😀')))\n",
    { kind: "not", item: { kind: "compare", op: "eq", target: field("event_type"), value: "😀" } },
  ],
];

describe("parseODataFilter", () => {
  it.each(parses)("parses %s", (text, ast) => {
    expect(parseODataFilter(text)).toEqual(ast);
  });

  it.each(parses)("formats %s back to text that parses to the same AST", (text) => {
    const ast = parseODataFilter(text);
    expect(parseODataFilter(formatODataFilter(ast))).toEqual(ast);
  });
});

const deepParens = `${"(".repeat(33)}event_type eq 'x'${")".repeat(33)}`;
const okParens = `${"(".repeat(32)}event_type eq 'x'${")".repeat(32)}`;

/** Filter, 1-based position named, a fragment of the message. */
const refusals: Array<[string, number, string]> = [
  ["", 1, "expected a property name"],
  ["colour eq 'x'", 1, "unknown property 'colour'"],
  ["ledger_entry/foo eq 'x'", 1, "unknown property 'ledger_entry/foo'"],
  ["attributes eq 'x'", 1, "unknown property 'attributes'"],
  ["attributes/a/b eq 'x'", 1, "unknown property"],
  ["trails eq 'x'", 1, "trails is a collection"],
  ["created_at eq '5'", 15, "needs an integer"],
  ["ledger_entry/index gt 'x'", 23, "needs an integer"],
  ["event_type eq 5", 15, "needs a string"],
  ["event_type eq true", 15, "needs a string"],
  ["attributes/n gt 5", 17, "needs a string"],
  ["created_at gt null", 15, "null compares only with eq or ne"],
  ["created_at eq 9223372036854775808", 15, "64-bit range"],
  ["created_at eq 1.5", 15, "only integers"],
  ["created_at eq 12abc", 15, "only integers"],
  ["event_type eq 'x", 15, "unterminated string"],
  ["event_type eq 'x')", 18, "unexpected ')'"],
  ["(event_type eq 'x'", 19, "expected ')'"],
  ["event_type eq 'x' event_type", 19, "after the end of the expression"],
  ["event_type like 'x'", 12, "expected a comparison operator"],
  ["event_type eq 'x' and", 22, "expected a property name"],
  ["event_type eq 'x'; DROP TABLE events", 18, 'unexpected character ";"'],
  ['event_type eq "x"', 15, "unexpected character"],
  ["'x' eq event_type", 1, "expected a property name"],
  ["trails/any(t: t ne 'a')", 15, "only t eq '<trail>'"],
  ["trails/any(t: u eq 'a')", 15, "only t eq '<trail>'"],
  ["trails/any(t: t eq 'a' and t eq 'b')", 24, "not supported here"],
  ["trails/any(t t eq 'a')", 14, "expected ':'"],
  ["trails/any(t: t eq 1)", 15, "only t eq '<trail>'"],
  ["not", 4, "expected a property name"],
  ["event_type eq 'a\u0000'", 17, "NUL character"],
  ["event_type eq '\uD800'", 16, "unpaired surrogate"],
  ["😀 eq 'a'", 1, "unexpected character"],
  ["event_type eq '😀' junk", 19, "after the end"], // code points, not UTF-16 units
  [deepParens, 33, "nested deeper than 32"],
  [`${"not ".repeat(33)}event_type eq 'x'`, 129, "nested deeper than 32"],
  [`${"(".repeat(10_000)}event_type eq 'x'${")".repeat(10_000)}`, 1, "longer than 4096"],
  [`event_type eq '${"a".repeat(4081)}'`, 4097, "longer than 4096"],
];

describe("parseODataFilter refusals", () => {
  it.each(refusals.map(([t, p, f]) => [t.length > 60 ? `${t.slice(0, 60)}…` : t, p, f, t] as const))(
    "refuses %j at position %i (%s)",
    (_title, position, fragment, text) => {
      let caught: unknown;
      try {
        parseODataFilter(text);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(QueryError);
      const err = caught as QueryError;
      expect(err.code).toBe("ODATA_PARSE");
      expect(err.kind).toBe("invalid_argument");
      expect(err.position).toBe(position);
      expect(err.message).toContain(`position ${position}`);
      expect(err.message).toContain(fragment);
    },
  );

  it("accepts exactly 32 levels of nesting and 4096 characters", () => {
    expect(parseODataFilter(okParens).kind).toBe("compare");
    const full = `event_type eq '${"a".repeat(4096 - 16)}'`;
    expect(Array.from(full)).toHaveLength(4096);
    expect(parseODataFilter(full).kind).toBe("compare");
  });

  it("keeps a long flat chain of and/or shallow (n-ary nodes)", () => {
    const text = Array.from({ length: 150 }, (_, i) => `created_at ne ${i}`).join(" and ");
    const ast = parseODataFilter(text);
    expect(ast.kind === "and" && ast.items.length).toBe(150);
  });
});
