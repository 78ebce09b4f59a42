import { z } from "zod";
import { QueryError } from "../../errors/query-error.js";
import { isUuid } from "../../formats/ids.js";
import { type PolicyFilter, parsePolicyFilters } from "../filters/policy-filter.js";
import { unstorableIndex } from "../filters/text-guard.js";
import { parseUserAttributeFilters } from "../filters/user-attributes.js";
import type { AccessPermission } from "./types.js";

/** A validated create body: every field present, filters parsed. */
export interface AccessPolicyInput {
  display_name: string;
  description: string;
  filters: PolicyFilter[];
  access_permissions: AccessPermission[];
}

const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => unstorableIndex(s) < 0, "contains a NUL character or an unpaired surrogate");
const names = z.array(text(1024).min(1)).max(1000).optional();
const subject = text(64).refine(
  (s) => s.startsWith("subjects/") && isUuid(s.slice(9)),
  "must be of the form subjects/<uuid>",
);

// Permissions are strict: a misspelt field would otherwise silently grant less than meant.
const permission = z.strictObject({
  asset_attributes_read: names,
  asset_attributes_write: names,
  behaviours: names,
  event_arc_display_type_read: names,
  event_arc_display_type_write: names,
  include_attributes: names,
  subjects: z.array(subject).max(1000).optional(),
  user_attributes: z.array(z.unknown()).optional(),
});

// The policy itself follows the wire rule: unknown fields (identity, tenant echoed back) are ignored.
const policy = z.object({
  display_name: text(1024).min(1),
  description: text(4096).optional(),
  filters: z.array(z.unknown()),
  access_permissions: z.array(permission).max(100),
});

/** Validates a create body, with a QueryError (code ACCESS_POLICY) naming the field. */
export function validateAccessPolicyInput(body: unknown): AccessPolicyInput {
  const p = check(policy, body);
  return {
    display_name: p.display_name,
    description: p.description ?? "",
    filters: parsePolicyFilters(p.filters, "filters"),
    access_permissions: p.access_permissions.map(toPermission),
  };
}

/** Validates a PATCH body: only the fields sent, each replaced whole. */
export function validateAccessPolicyPatch(body: unknown): Partial<AccessPolicyInput> {
  const p = check(policy.partial(), body);
  const out: Partial<AccessPolicyInput> = {};
  if (p.display_name !== undefined) out.display_name = p.display_name;
  if (p.description !== undefined) out.description = p.description;
  if (p.filters !== undefined) out.filters = parsePolicyFilters(p.filters, "filters");
  if (p.access_permissions !== undefined) out.access_permissions = p.access_permissions.map(toPermission);
  return out;
}

function toPermission(p: z.infer<typeof permission>, i: number): AccessPermission {
  return {
    asset_attributes_read: p.asset_attributes_read ?? [],
    asset_attributes_write: p.asset_attributes_write ?? [],
    behaviours: p.behaviours ?? [],
    event_arc_display_type_read: p.event_arc_display_type_read ?? [],
    event_arc_display_type_write: p.event_arc_display_type_write ?? [],
    include_attributes: p.include_attributes ?? [],
    subjects: (p.subjects ?? []).map((s) => s.toLowerCase()),
    user_attributes: parseUserAttributeFilters(
      p.user_attributes ?? [],
      `access_permissions[${i}].user_attributes`,
    ),
  };
}

function check<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  if (!issue) throw new QueryError("ACCESS_POLICY", "access policy is malformed");
  const path = fieldPath(issue.path);
  const where = path ? `${path}: ` : "access policy: ";
  if (issue.code === "unrecognized_keys")
    throw new QueryError(
      "ACCESS_POLICY",
      `${where}unknown field ${issue.keys.map((k) => `"${k}"`).join(", ")}`,
    );
  throw new QueryError("ACCESS_POLICY", `${where}${issue.message}`);
}

/** `["access_permissions", 0, "subjects", 1]` as `access_permissions[0].subjects[1]`. */
function fieldPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`)).join("");
}
