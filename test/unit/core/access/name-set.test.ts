import { describe, expect, it } from "vitest";
import { filterableAttributes } from "../../../../src/core/access/grant.js";
import { intersectNames } from "../../../../src/core/access/name-set.js";
import { admin, app, member, nobody, permission, policy } from "./fixtures.js";

const appOnly = { user_attributes: [{ or: ["subject=client-1"] }] };
const policies = [
  policy(
    [{ or: ["attributes.arc_display_type=Call"] }],
    permission({ ...appOnly, asset_attributes_read: ["arc_display_type", "site"] }),
  ),
  policy(
    [{ or: ["attributes.site=Leeds"] }],
    permission({ ...appOnly, include_attributes: ["site", "owner"] }),
  ),
  policy(
    [{ or: ["attributes.kind=x"] }],
    permission({ user_attributes: [{ or: ["group:maintainers"] }], asset_attributes_read: ["*"] }),
  ),
];

describe("filterableAttributes", () => {
  it("is what every permission matching the caller lets it read", () => {
    expect(filterableAttributes(policies, app)).toEqual(new Set(["site"]));
  });
  it("is every attribute for administrators and for a caller whose only permission reads all", () => {
    expect(filterableAttributes(policies, admin)).toBe("*");
    expect(filterableAttributes(policies, member)).toBe("*");
  });
  it("is nothing for a caller no permission matches", () => {
    expect(filterableAttributes(policies, nobody)).toEqual(new Set());
  });
});

describe("intersectNames", () => {
  it("keeps the names in both, '*' standing for every name", () => {
    expect(intersectNames("*", "*")).toBe("*");
    expect(intersectNames("*", new Set(["a"]))).toEqual(new Set(["a"]));
    expect(intersectNames(new Set(["a", "b"]), new Set(["b", "c"]))).toEqual(new Set(["b"]));
  });
});
