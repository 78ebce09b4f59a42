import type { UserAttributeCondition, UserAttributeFilter } from "../filters/user-attributes.js";
import type { AccessPermission, Caller } from "./types.js";

/**
 * True when the permission applies to the caller: OBAC (`subjects`) for callers of another
 * organisation, ABAC (`user_attributes`) for callers inside the tenancy. Neither list
 * applies across that boundary, and an empty list matches nobody (secure by default).
 */
export function callerMatchesPermission(permission: AccessPermission, caller: Caller): boolean {
  if (caller.kind === "external") return matchesSubjects(permission.subjects, caller);
  return matchesUserAttributes(permission.user_attributes, caller);
}

function matchesSubjects(subjects: readonly string[], caller: Caller): boolean {
  const mine = new Set((caller.externalSubjectIdentities ?? []).map((s) => s.toLowerCase()));
  return subjects.some((s) => mine.has(s.toLowerCase()));
}

/** Every inner list has a condition the caller satisfies; no lists: false. */
function matchesUserAttributes(filters: readonly UserAttributeFilter[], caller: Caller): boolean {
  return filters.length > 0 && filters.every((f) => f.or.some((c) => userConditionHolds(c, caller)));
}

/** One `user_attributes` entry against the caller. */
function userConditionHolds(c: UserAttributeCondition, caller: Caller): boolean {
  switch (c.kind) {
    case "email":
      // Addresses are compared as mail systems do in practice: case-insensitively.
      return caller.email !== undefined && caller.email.toLowerCase() === c.value.toLowerCase();
    case "subject":
      return caller.subject === c.value;
    case "group":
      return caller.groups?.includes(c.value) ?? false;
    case "claim":
      return Object.hasOwn(caller.claims, c.claim) && claimHolds(caller.claims[c.claim], c.value);
  }
}

/** A claim matches its scalar text, or any element of a list claim. */
function claimHolds(claim: unknown, value: string): boolean {
  if (Array.isArray(claim)) return claim.some((v) => scalarText(v) === value);
  return scalarText(claim) === value;
}

function scalarText(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}
