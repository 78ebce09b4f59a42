import { describe, expect, it } from "vitest";
import { callerMatchesPermission } from "../../../../src/core/access/caller-match.js";
import type { Caller } from "../../../../src/core/access/types.js";
import { app, external, member, nobody, permission, SUBJECT_A, SUBJECT_B } from "./fixtures.js";

type Wire = Parameters<typeof permission>[0];

/** Permission, caller, whether it applies. */
const cases: Array<[string, Wire, Caller, boolean]> = [
  ["subject= matches the client id", { user_attributes: [{ or: ["subject=client-1"] }] }, app, true],
  ["subject= of another client", { user_attributes: [{ or: ["subject=client-1"] }] }, nobody, false],
  ["jwt_ claim", { user_attributes: [{ or: ["jwt_role=auditor"] }] }, app, true],
  ["jwt_ claim, other value", { user_attributes: [{ or: ["jwt_role=admin"] }] }, app, false],
  ["jwt_ claim from a list claim", { user_attributes: [{ or: ["jwt_teams=blue"] }] }, app, true],
  ["jwt_ claim that is a number", { user_attributes: [{ or: ["jwt_level=3"] }] }, app, true],
  ["jwt_ claim absent", { user_attributes: [{ or: ["jwt_toString=x"] }] }, app, false],
  ["email, case-insensitively", { user_attributes: [{ or: ["email=ann@example.COM"] }] }, member, true],
  ["email of someone else", { user_attributes: [{ or: ["email=bob@example.com"] }] }, member, false],
  ["email against an application", { user_attributes: [{ or: ["email=ann@example.com"] }] }, app, false],
  ["group", { user_attributes: [{ or: ["group:supervisors", "group:maintainers"] }] }, member, true],
  [
    "outer AND: both lists",
    { user_attributes: [{ or: ["subject=client-1"] }, { or: ["jwt_role=auditor"] }] },
    app,
    true,
  ],
  [
    "outer AND: one list fails",
    { user_attributes: [{ or: ["subject=client-1"] }, { or: ["jwt_role=x"] }] },
    app,
    false,
  ],
  ["no user_attributes matches nobody", { asset_attributes_read: ["*"] }, app, false],
  ["OBAC subject, case-insensitively", { subjects: [SUBJECT_B, SUBJECT_A] }, external, true],
  ["OBAC subject not imported", { subjects: [SUBJECT_B] }, external, false],
  [
    "OBAC does not apply inside the tenancy",
    { subjects: [SUBJECT_A] },
    { ...app, externalSubjectIdentities: [SUBJECT_A] },
    false,
  ],
  [
    "ABAC does not apply to another organisation",
    { user_attributes: [{ or: ["subject=x"] }] },
    { ...external, subject: "x" },
    false,
  ],
  [
    "mixed ABAC and OBAC: the ABAC half",
    { subjects: [SUBJECT_B], user_attributes: [{ or: ["subject=client-1"] }] },
    app,
    true,
  ],
  [
    "mixed ABAC and OBAC: the OBAC half",
    { subjects: [SUBJECT_A], user_attributes: [{ or: ["subject=client-9"] }] },
    external,
    true,
  ],
];

describe("callerMatchesPermission", () => {
  it.each(cases)("%s", (_name, wire, caller, expected) => {
    expect(callerMatchesPermission(permission(wire), caller)).toBe(expected);
  });
});
