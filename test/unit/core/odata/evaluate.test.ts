import { describe, expect, it } from "vitest";
import { compileODataFilter } from "../../../../src/core/odata/compile.js";
import { evaluateODataFilter, type ODataRecord } from "../../../../src/core/odata/evaluate.js";
import { parseODataFilter } from "../../../../src/core/odata/parser.js";
import { runSql } from "../../../helpers/mini-sql.js";
import { COLUMNS, row } from "./columns.js";

const record: ODataRecord = {
  trails: ["conversation/1", "customer/42"],
  event_type: "vcon.created",
  origin_tenant: "tenant/abc",
  created_by: "applications/1",
  created_at: 1_700_000_000_000,
  ledger_entry: { index: "12", idtimestamp: "018f0000", content_hash: "aa" },
  attributes: { colour: "red", n: 5, ok: true, nested: { b: 1, a: [1, "x"] }, none: null, empty: "" },
};
const bare: ODataRecord = { event_type: "x" };

/** Filter, expected for `record`, expected for `bare` (no trails, attributes, ledger entry). */
const cases: Array<[string, boolean, boolean]> = [
  ["event_type eq 'vcon.created'", true, false],
  ["event_type ne 'vcon.created'", false, true],
  ["event_type gt 'vcon'", true, true],
  ["event_type lt 'vcon.created'", false, false],
  ["event_type le 'vcon.created'", true, false],
  ["event_type lt 'y'", true, true],
  ["origin_tenant eq null", false, true],
  ["origin_tenant ne null", true, false],
  ["origin_tenant ne 'tenant/x'", true, true],
  ["not (origin_tenant eq 'tenant/abc')", false, true],
  ["created_at ge 1700000000000", true, false],
  ["created_at gt 1700000000000", false, false],
  ["not created_at gt 1700000000000", true, true],
  ["ledger_entry/index eq 12", true, false],
  ["ledger_entry/index lt 100", true, false],
  ["ledger_entry/idtimestamp ge '018f'", true, false],
  ["ledger_entry/content_hash eq 'aa'", true, false],
  ["trails/any(t: t eq 'customer/42')", true, false],
  ["trails/any(t: t eq 'nope' or t eq 'conversation/1')", true, false],
  ["not trails/any(t: t eq 'nope')", true, true],
  ["attributes/colour eq 'red'", true, false],
  ["attributes/colour ne 'red'", false, true],
  ["attributes/n eq 5", true, false],
  ["attributes/n eq '5'", true, false],
  ["attributes/ok eq true", true, false],
  ['attributes/nested eq \'{"a": [1, "x"], "b": 1}\'', true, false],
  ["attributes/none eq null", true, true],
  ["attributes/empty eq ''", true, false],
  ["attributes/missing eq null", true, true],
  ["attributes/colour gt 'Red'", true, false],
  ["attributes/toString eq null", true, true],
  ["attributes/__proto__ eq null", true, true],
  ["event_type eq 'x' or created_at eq 1700000000000", true, true],
  ["event_type eq 'x' and created_at eq 1700000000000", false, false],
  ["not (attributes/colour eq 'red' and created_at gt 5)", false, true],
];

describe("evaluateODataFilter", () => {
  it.each(cases)("%s", (text, forRecord, forBare) => {
    const ast = parseODataFilter(text);
    expect(evaluateODataFilter(ast, record)).toBe(forRecord);
    expect(evaluateODataFilter(ast, bare)).toBe(forBare);
  });

  it.each(cases)("compiled SQL agrees: %s", (text, forRecord, forBare) => {
    const { sql, params } = compileODataFilter(parseODataFilter(text), COLUMNS, 1);
    expect(runSql(sql, params, 1, row(record))).toBe(forRecord);
    expect(runSql(sql, params, 1, row(bare))).toBe(forBare);
  });

  it("accepts integers as number, bigint or decimal string", () => {
    const ast = parseODataFilter("created_at eq 9007199254740993");
    expect(evaluateODataFilter(ast, { created_at: 9007199254740993n })).toBe(true);
    expect(evaluateODataFilter(ast, { created_at: "9007199254740993" })).toBe(true);
    expect(evaluateODataFilter(ast, { created_at: 1.5 })).toBe(false);
  });
});
