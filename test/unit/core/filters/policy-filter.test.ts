import { describe, expect, it } from "vitest";
import { parsePolicyFilters, policyFiltersToWire } from "../../../../src/core/filters/policy-filter.js";
import { matchPolicyFilters } from "../../../../src/core/filters/policy-match.js";
import { compilePolicyFilters } from "../../../../src/core/filters/policy-sql.js";
import { QueryError } from "../../../../src/errors/query-error.js";
import { runSql } from "../../../helpers/mini-sql.js";

describe("parsePolicyFilters", () => {
  it("parses every form and keeps the text for answering back", () => {
    const wire = [
      { or: ["attributes.arc_display_type=Call", "attributes.site!=Cambridge"] },
      { or: ["attributes.x=*", "attributes.y!=*", "attributes.eq=a=b", "attributes.e="] },
    ];
    const filters = parsePolicyFilters(wire);
    expect(filters).toEqual([
      {
        or: [
          { text: "attributes.arc_display_type=Call", name: "arc_display_type", op: "eq", value: "Call" },
          { text: "attributes.site!=Cambridge", name: "site", op: "ne", value: "Cambridge" },
        ],
      },
      {
        or: [
          { text: "attributes.x=*", name: "x", op: "present" },
          { text: "attributes.y!=*", name: "y", op: "absent" },
          { text: "attributes.eq=a=b", name: "eq", op: "eq", value: "a=b" },
          { text: "attributes.e=", name: "e", op: "eq", value: "" },
        ],
      },
    ]);
    expect(policyFiltersToWire(filters)).toEqual(wire);
    expect(parsePolicyFilters([])).toEqual([]);
  });

  const refused: Array<[unknown, string]> = [
    [null, "filters must be a list"],
    [{ or: ["attributes.a=b"] }, "filters must be a list"],
    [["attributes.a=b"], "filters[0] must be an object"],
    [[{ and: ["attributes.a=b"] }], "filters[0].or must be a non-empty list"],
    [[{ or: [] }], "filters[0].or must be a non-empty list"],
    [[{ or: ["attributes.a=b", 5] }], "filters[0].or[1] must be a string"],
    [
      [{ or: ["attributes.a=b"] }, { or: ["location=basingstoke"] }],
      'filters[1].or[0] "location=basingstoke": expected attributes.<name>=<value>',
    ],
    [[{ or: ["attributes.a"] }], 'filters[0].or[0] "attributes.a": expected'],
    [[{ or: ["attributes.=x"] }], "names no attribute"],
    [[{ or: ["attributes.!=x"] }], "names no attribute"],
    [[{ or: ["attributes.a>5"] }], "expected attributes"],
    [[{ or: ["attributes.a=\u0000"] }], "NUL character"],
    [[{ or: [`attributes.a=${"x".repeat(1100)}`] }], "longer than 1024"],
    [Array.from({ length: 101 }, () => ({ or: ["attributes.a=b"] })), "more than 100"],
    [[{ or: Array.from({ length: 101 }, () => "attributes.a=b") }], "more than 100"],
  ];
  it.each(refused)("refuses %j", (value, fragment) => {
    let caught: unknown;
    try {
      parsePolicyFilters(value);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(QueryError);
    expect((caught as QueryError).code).toBe("POLICY_FILTER");
    expect((caught as QueryError).message).toContain(fragment);
  });

  it("names the field it was given (compliance asset_filter)", () => {
    expect(() => parsePolicyFilters([{ or: ["x"] }], "asset_filter")).toThrow('asset_filter[0].or[0] "x"');
  });
});

const attributes = { arc_display_type: "Call", site: "Leeds", n: 7, empty: "", nul: null };

/** Filters, whether `attributes` pass. */
const cases: Array<[Array<{ or: string[] }>, boolean]> = [
  [[], true],
  [[{ or: ["attributes.arc_display_type=Call"] }], true],
  [[{ or: ["attributes.arc_display_type=call"] }], false],
  [[{ or: ["attributes.arc_display_type=Chat", "attributes.site=Leeds"] }], true],
  [[{ or: ["attributes.arc_display_type=Call"] }, { or: ["attributes.site=York"] }], false],
  [[{ or: ["attributes.site!=York"] }], true],
  [[{ or: ["attributes.site!=Leeds"] }], false],
  [[{ or: ["attributes.missing!=York"] }], true],
  [[{ or: ["attributes.n=7"] }], true],
  [[{ or: ["attributes.site=*"] }], true],
  [[{ or: ["attributes.empty=*"] }], false],
  [[{ or: ["attributes.nul=*"] }], false],
  [[{ or: ["attributes.missing!=*"] }], true],
  [[{ or: ["attributes.empty!=*"] }], true],
  [[{ or: ["attributes.site!=*"] }], false],
  [[{ or: ["attributes.missing=York", "attributes.missing!=*"] }], true],
  [[{ or: ["attributes.missing=York"] }, { or: ["attributes.site=Leeds"] }], false],
  [[{ or: ["attributes.constructor=*"] }], false],
];

describe("matchPolicyFilters and compilePolicyFilters agree", () => {
  it.each(cases)("%j → %s", (wire, expected) => {
    const filters = parsePolicyFilters(wire);
    expect(matchPolicyFilters(filters, attributes)).toBe(expected);
    const { sql, params } = compilePolicyFilters(filters, "a.attributes", 2);
    expect(runSql(sql, params, 2, { "a.attributes": attributes })).toBe(expected);
  });

  it("compiles to parameters only", () => {
    const filters = parsePolicyFilters([
      { or: ["attributes.it's=x'y", "attributes.b!=c"] },
      { or: ["attributes.d=*"] },
    ]);
    expect(compilePolicyFilters(filters, "a.attributes", 1)).toEqual({
      sql:
        "(((a.attributes->>$1::text) = $2::text) OR ((a.attributes->>$3::text) IS DISTINCT FROM $4::text)) AND " +
        "((coalesce((a.attributes->>$5::text), '') <> ''))",
      params: ["it's", "x'y", "b", "c", "d"],
    });
  });
});
