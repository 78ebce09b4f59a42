import { describe, expect, it } from "vitest";
import type { AttributeFilter } from "../../../../src/core/filters/attribute-filter.js";
import { parseAttributeQuery } from "../../../../src/core/filters/attribute-query.js";
import { QueryError } from "../../../../src/errors/query-error.js";

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

  it("keeps a grouped look-up's values once each, in the order first asked, keys apart", () => {
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < 250; i++) pairs.push(["attributes.subject", `vcon://${i % 200}`]);
    pairs.push(["attributes.subject", "*"], ["attributes.other", "vcon://1"]);
    for (let i = 0; i < 248; i++) pairs.push(["attributes.subject", `vcon://${(i * 7) % 300}`]);
    const { filters } = parseAttributeQuery(pairs, PREFIXES);
    const expected = [
      ...new Set(pairs.filter(([k, v]) => k === "attributes.subject" && v !== "*").map(([, v]) => v)),
    ];
    expect(filters).toEqual([
      { kind: "match", prefix: "attributes", name: "subject", values: expected, present: true },
      { kind: "match", prefix: "attributes", name: "other", values: ["vcon://1"], present: false },
    ]);
    expect(expected.length).toBeGreaterThan(200);
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
