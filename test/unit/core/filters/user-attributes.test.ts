import { describe, expect, it } from "vitest";
import {
  parseUserAttributeFilters,
  type UserAttributeCondition,
  userAttributeFiltersToWire,
} from "../../../../src/core/filters/user-attributes.js";
import { QueryError } from "../../../../src/errors/query-error.js";

const parsed: Array<[string, UserAttributeCondition]> = [
  ["email=ann@example.com", { text: "email=ann@example.com", kind: "email", value: "ann@example.com" }],
  ["subject=0b3c", { text: "subject=0b3c", kind: "subject", value: "0b3c" }],
  ["jwt_role=auditor", { text: "jwt_role=auditor", kind: "claim", claim: "role", value: "auditor" }],
  ["jwt_a=b=c", { text: "jwt_a=b=c", kind: "claim", claim: "a", value: "b=c" }],
  ["group:maintainers", { text: "group:maintainers", kind: "group", value: "maintainers" }],
  [
    "group=issuer1:maintainers",
    { text: "group=issuer1:maintainers", kind: "group", value: "issuer1:maintainers" },
  ],
];

describe("parseUserAttributeFilters", () => {
  it.each(parsed)("parses %s", (text, condition) => {
    const filters = parseUserAttributeFilters([{ or: [text] }]);
    expect(filters).toEqual([{ or: [condition] }]);
    expect(userAttributeFiltersToWire(filters)).toEqual([{ or: [text] }]);
  });

  const refused: Array<[unknown, string]> = [
    [[{ or: ["name=ann"] }], 'user_attributes[0].or[0] "name=ann": expected email='],
    [[{ or: ["email="] }], "names no value"],
    [[{ or: ["jwt_=x"] }], "expected email="],
    [[{ or: ["group:"] }], "names no group"],
    [[{ or: ["ann@example.com"] }], "expected email="],
    [[{ or: ["email=a"] }, { or: [7] }], "user_attributes[1].or[0] must be a string"],
    ["email=a", "user_attributes must be a list"],
  ];
  it.each(refused)("refuses %j", (value, fragment) => {
    expect(() => parseUserAttributeFilters(value)).toThrow(QueryError);
    expect(() => parseUserAttributeFilters(value)).toThrow(fragment);
  });
});
