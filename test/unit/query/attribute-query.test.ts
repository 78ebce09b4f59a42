import { describe, expect, it } from "vitest";
import type { AttributeFilter } from "../../../src/core/filters/attribute-filter.js";
import { matchAttributeFilters } from "../../../src/core/filters/attribute-match.js";
import { parseAttributeQuery } from "../../../src/core/filters/attribute-query.js";
import { compileAttributeFilters } from "../../../src/core/filters/attribute-sql.js";
import { QueryError } from "../../../src/core/filters/query-error.js";
import { runSql } from "./mini-sql.js";

const PREFIXES = ["attributes", "event_attributes", "asset_attributes", "principal_declared"];
const q = (s: string) => [...new URLSearchParams(s)] as Array<[string, string]>;

describe("parseAttributeQuery", () => {
  const parsed: Array<[string, AttributeFilter[], Array<[string, string]>]> = [
    [
      "attributes.colour=red",
      [{ kind: "match", prefix: "attributes", name: "colour", values: ["red"], present: false }],
      [],
    ],
    [
      "attributes.colour=red&page_size=5&attributes.colour=blue&attributes.colour=red",
      [{ kind: "match", prefix: "attributes", name: "colour", values: ["red", "blue"], present: false }],
      [["page_size", "5"]],
    ],
    [
      "event_attributes.x=*",
      [{ kind: "match", prefix: "event_attributes", name: "x", values: [], present: true }],
      [],
    ],
    ["asset_attributes.x!=*", [{ kind: "missing", prefix: "asset_attributes", name: "x" }], []],
    [
      "attributes.x=*&attributes.x=&attributes.y!=*&attributes.y!=*",
      [
        { kind: "match", prefix: "attributes", name: "x", values: [""], present: true },
        { kind: "missing", prefix: "attributes", name: "y" },
      ],
      [],
    ],
    [
      "principal_declared.issuer=https%3A%2F%2Fidp&confirmation_status=PENDING&attributesx=1&other.a=b",
      [
        {
          kind: "match",
          prefix: "principal_declared",
          name: "issuer",
          values: ["https://idp"],
          present: false,
        },
      ],
      [
        ["confirmation_status", "PENDING"],
        ["attributesx", "1"],
        ["other.a", "b"],
      ],
    ],
    [
      "attributes.a.b%27c=%27%3B%20DROP%20TABLE%20x",
      [{ kind: "match", prefix: "attributes", name: "a.b'c", values: ["'; DROP TABLE x"], present: false }],
      [],
    ],
  ];
  it.each(parsed)("parses %s", (query, filters, rest) => {
    expect(parseAttributeQuery(q(query), PREFIXES)).toEqual({ filters, rest });
  });

  const refused: Array<[Array<[string, string]>, string]> = [
    [[["attributes.", "x"]], "names no attribute"],
    [[["attributes.!", "*"]], "names no attribute"],
    [[["attributes.x!", "y"]], "takes only the value *"],
    [[["principal_declared.foo", "y"]], "filters only on issuer"],
    [[["attributes.a\u0000", "y"]], "NUL character"],
    [[["attributes.a", "\uDC00"]], "unpaired surrogate"],
    [Array.from({ length: 501 }, (_, i) => [`attributes.a${i}`, "v"] as [string, string]), "more than 500"],
  ];
  it.each(refused)("refuses %j", (pairs, fragment) => {
    expect(() => parseAttributeQuery(pairs, PREFIXES)).toThrow(QueryError);
    expect(() => parseAttributeQuery(pairs, PREFIXES)).toThrow(fragment);
  });
});

const columnFor = (prefix: string) => `r.${prefix}`;

describe("compileAttributeFilters", () => {
  it("compiles every form with names and values as parameters", () => {
    const { filters } = parseAttributeQuery(
      q(
        "attributes.a=1&attributes.a=2&event_attributes.b=*&asset_attributes.c!=*&attributes.d=*&attributes.d=x",
      ),
      PREFIXES,
    );
    expect(compileAttributeFilters(filters, columnFor, 4)).toEqual({
      sql:
        "((r.attributes->>$4::text) = ANY($5::text[])) AND (coalesce((r.event_attributes->>$6::text), '') <> '') AND " +
        "(coalesce((r.asset_attributes->>$7::text), '') = '') AND ((r.attributes->>$8::text) = ANY($9::text[]) OR coalesce((r.attributes->>$8::text), '') <> '')",
      params: ["a", ["1", "2"], "b", "c", "d", ["x"]],
    });
  });

  it("answers true for no filters", () => {
    expect(compileAttributeFilters([], columnFor, 1)).toEqual({ sql: "true", params: [] });
  });
});

const rec = {
  attributes: { colour: "red", n: 5, flag: false, empty: "", nul: null, obj: { k: "v" } },
  event_attributes: { arc_display_type: "Call" },
};

/** Query, whether `rec` passes. */
const matches: Array<[string, boolean]> = [
  ["attributes.colour=red", true],
  ["attributes.colour=blue", false],
  ["attributes.colour=blue&attributes.colour=red", true],
  ["attributes.colour=Red", false],
  ["attributes.n=5", true],
  ["attributes.flag=false", true],
  ["attributes.obj=%7B%22k%22%3A%20%22v%22%7D", true],
  ["attributes.colour=*", true],
  ["attributes.empty=*", false],
  ["attributes.nul=*", false],
  ["attributes.missing=*", false],
  ["attributes.empty!=*", true],
  ["attributes.nul!=*", true],
  ["attributes.missing!=*", true],
  ["attributes.colour!=*", false],
  ["attributes.empty=", true],
  ["attributes.missing=", false],
  ["attributes.missing=*&attributes.missing=", false],
  ["attributes.empty=*&attributes.empty=", true],
  ["attributes.constructor!=*", true],
  ["attributes.toString=*", false],
  ["event_attributes.arc_display_type=Call&attributes.colour=red", true],
  ["event_attributes.arc_display_type=Call&attributes.colour=blue", false],
  ["asset_attributes.x!=*", true],
  ["asset_attributes.x=*", false],
];

describe("matchAttributeFilters and the compiled SQL agree", () => {
  it.each(matches)("%s → %s", (query, expected) => {
    const { filters } = parseAttributeQuery(q(query), PREFIXES);
    expect(matchAttributeFilters(filters, rec)).toBe(expected);
    const { sql, params } = compileAttributeFilters(filters, columnFor, 1);
    const row = {
      "r.attributes": rec.attributes,
      "r.event_attributes": rec.event_attributes,
      "r.asset_attributes": null,
    };
    expect(runSql(sql, params, 1, row)).toBe(expected);
  });
});
