import type { AccessPermission, AccessPolicy, Caller } from "../../../../src/core/access/types.js";
import { parsePolicyFilters } from "../../../../src/core/filters/policy-filter.js";
import { parseUserAttributeFilters } from "../../../../src/core/filters/user-attributes.js";

export const SUBJECT_A = "subjects/9846b867-3e42-4b5d-af56-bcd62c2126d2";
export const SUBJECT_B = "subjects/3907c132-900b-4481-82da-21ffe699ddb9";

/** A permission from its wire form, lists defaulting to empty. */
export function permission(
  p: Partial<Omit<AccessPermission, "user_attributes">> & { user_attributes?: Array<{ or: string[] }> },
): AccessPermission {
  return {
    asset_attributes_read: p.asset_attributes_read ?? [],
    asset_attributes_write: p.asset_attributes_write ?? [],
    behaviours: p.behaviours ?? [],
    event_arc_display_type_read: p.event_arc_display_type_read ?? [],
    event_arc_display_type_write: p.event_arc_display_type_write ?? [],
    include_attributes: p.include_attributes ?? [],
    subjects: p.subjects ?? [],
    user_attributes: parseUserAttributeFilters(p.user_attributes ?? []),
  };
}

/** A policy from wire filters and permissions. */
export function policy(filters: Array<{ or: string[] }>, ...permissions: AccessPermission[]): AccessPolicy {
  return { filters: parsePolicyFilters(filters), access_permissions: permissions };
}

export const app: Caller = {
  kind: "application",
  subject: "client-1",
  claims: { role: "auditor", teams: ["red", "blue"], level: 3 },
  isAdmin: false,
};
export const member: Caller = {
  kind: "member",
  subject: "idp|42",
  email: "Ann@Example.com",
  claims: {},
  groups: ["maintainers"],
  isAdmin: false,
};
export const external: Caller = {
  kind: "external",
  claims: {},
  externalSubjectIdentities: [SUBJECT_A.toUpperCase()],
  isAdmin: false,
};
export const admin: Caller = { kind: "member", claims: {}, isAdmin: true };
export const nobody: Caller = { kind: "application", subject: "client-2", claims: {}, isAdmin: false };
