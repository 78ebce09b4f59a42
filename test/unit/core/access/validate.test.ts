import { describe, expect, it } from "vitest";
import {
  validateAccessPolicyInput,
  validateAccessPolicyPatch,
} from "../../../../src/core/access/validate.js";
import { accessPolicyToWire } from "../../../../src/core/access/wire.js";
import { QueryError } from "../../../../src/errors/query-error.js";
import { SUBJECT_A } from "./fixtures.js";

const full = {
  display_name: "Auditors",
  description: "read calls",
  filters: [
    { or: ["attributes.arc_display_type=Call", "attributes.arc_display_type=Chat"] },
    { or: ["attributes.site!=*"] },
  ],
  access_permissions: [
    {
      asset_attributes_read: ["*"],
      asset_attributes_write: ["site"],
      behaviours: ["RecordEvidence"],
      event_arc_display_type_read: ["vcon.created"],
      event_arc_display_type_write: ["vcon.created"],
      include_attributes: ["arc_display_name"],
      subjects: [SUBJECT_A],
      user_attributes: [{ or: ["subject=client-1", "jwt_role=auditor"] }, { or: ["group:x"] }],
    },
  ],
};

describe("validateAccessPolicyInput", () => {
  it("accepts every field and answers it back unchanged", () => {
    const input = validateAccessPolicyInput({ ...full, identity: "access_policies/x", tenant: "tenant/y" });
    expect(input.filters[0]?.or[1]).toEqual({
      text: "attributes.arc_display_type=Chat",
      name: "arc_display_type",
      op: "eq",
      value: "Chat",
    });
    expect(input.access_permissions[0]?.user_attributes[0]?.or[1]).toEqual({
      text: "jwt_role=auditor",
      kind: "claim",
      claim: "role",
      value: "auditor",
    });
    expect(accessPolicyToWire(input)).toEqual(full);
  });

  it("fills in empty lists and description", () => {
    const input = validateAccessPolicyInput({ display_name: "p", filters: [], access_permissions: [{}] });
    expect(input.description).toBe("");
    expect(input.access_permissions[0]).toEqual({
      asset_attributes_read: [],
      asset_attributes_write: [],
      behaviours: [],
      event_arc_display_type_read: [],
      event_arc_display_type_write: [],
      include_attributes: [],
      subjects: [],
      user_attributes: [],
    });
  });

  const perm = (p: Record<string, unknown>) => ({ ...full, access_permissions: [{}, p] });
  const refused: Array<[string, unknown, string]> = [
    ["not an object", "x", "access policy:"],
    ["no display_name", { ...full, display_name: undefined }, "display_name"],
    ["empty display_name", { ...full, display_name: "" }, "display_name"],
    ["display_name of the wrong type", { ...full, display_name: 5 }, "display_name"],
    ["no filters", { ...full, filters: undefined }, "filters"],
    ["no access_permissions", { ...full, access_permissions: undefined }, "access_permissions"],
    [
      "unknown permission field",
      perm({ asset_attributes_reed: ["a"] }),
      'access_permissions[1]: unknown field "asset_attributes_reed"',
    ],
    ["a list of the wrong type", perm({ behaviours: "RecordEvidence" }), "access_permissions[1].behaviours"],
    [
      "an empty attribute name",
      perm({ asset_attributes_read: [""] }),
      "access_permissions[1].asset_attributes_read[0]",
    ],
    [
      "a subject that is not subjects/<uuid>",
      perm({ subjects: ["subjects/abc"] }),
      "access_permissions[1].subjects[0]: must be of the form subjects/<uuid>",
    ],
    ["a bare uuid subject", perm({ subjects: [SUBJECT_A.slice(9)] }), "subjects/<uuid>"],
    [
      "a malformed user attribute",
      perm({ user_attributes: [{ or: ["role=x"] }] }),
      'access_permissions[1].user_attributes[0].or[0] "role=x"',
    ],
    [
      "a malformed filter",
      { ...full, filters: [{ or: ["attributes.a=b", "a=b"] }] },
      'filters[0].or[1] "a=b"',
    ],
    ["a NUL in a name", perm({ include_attributes: ["a\u0000"] }), "NUL character"],
    [
      "too many permissions",
      { ...full, access_permissions: Array.from({ length: 101 }, () => ({})) },
      "access_permissions",
    ],
  ];
  it.each(refused)("refuses %s", (_n, body, fragment) => {
    let caught: unknown;
    try {
      validateAccessPolicyInput(body);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(QueryError);
    expect((caught as QueryError).kind).toBe("invalid_argument");
    expect((caught as QueryError).message).toContain(fragment);
  });
});

describe("validateAccessPolicyPatch", () => {
  it("keeps only the fields sent", () => {
    expect(validateAccessPolicyPatch({ display_name: "renamed" })).toEqual({ display_name: "renamed" });
    expect(validateAccessPolicyPatch({ filters: [] })).toEqual({ filters: [] });
    expect(validateAccessPolicyPatch({})).toEqual({});
  });

  it("validates what is sent", () => {
    expect(() => validateAccessPolicyPatch({ access_permissions: [{ subjects: ["x"] }] })).toThrow(
      "subjects[0]",
    );
    expect(() => validateAccessPolicyPatch({ filters: [{ or: ["x"] }] })).toThrow('filters[0].or[0] "x"');
  });
});
