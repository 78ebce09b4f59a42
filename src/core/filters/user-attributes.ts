import { parseOrGroups } from "./or-groups.js";

/**
 * One `user_attributes` entry of an access permission (ABAC): `email=<address>`,
 * `subject=<client id>`, `jwt_<claim>=<value>`, or `group:<name>` (also `group=<name>`).
 */
export type UserAttributeCondition =
  | { text: string; kind: "email" | "subject" | "group"; value: string }
  | { text: string; kind: "claim"; claim: string; value: string };

/** One inner OR list; the permission's user_attributes AND these together. */
export interface UserAttributeFilter {
  or: UserAttributeCondition[];
}

const FORM = "expected email=<address>, subject=<client id>, jwt_<claim>=<value> or group:<name>";

/** Validates and parses `[{or: ["email=...", "jwt_role=...", "group:name", ...]}, ...]`. */
export function parseUserAttributeFilters(value: unknown, field = "user_attributes"): UserAttributeFilter[] {
  return parseOrGroups(value, field, "USER_ATTRIBUTE", parseUserAttributeCondition);
}

/** Parses one user attribute string, or answers why it is malformed. */
function parseUserAttributeCondition(text: string): UserAttributeCondition | string {
  if (text.startsWith("group:")) return group(text, text.slice(6));
  const eq = text.indexOf("=");
  if (eq < 0) return FORM;
  const key = text.slice(0, eq);
  const value = text.slice(eq + 1);
  if (key === "group") return group(text, value);
  if (value === "") return "names no value";
  if (key === "email" || key === "subject") return { text, kind: key, value };
  if (key.startsWith("jwt_") && key.length > 4) return { text, kind: "claim", claim: key.slice(4), value };
  return FORM;
}

function group(text: string, name: string): UserAttributeCondition | string {
  return name === "" ? "names no group" : { text, kind: "group", value: name };
}

/** The filters as the API shows them: `[{or: [string]}]`. */
export function userAttributeFiltersToWire(filters: readonly UserAttributeFilter[]): Array<{ or: string[] }> {
  return filters.map((f) => ({ or: f.or.map((c) => c.text) }));
}
