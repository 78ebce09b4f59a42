import { compilePolicyFilters } from "../filters/policy-sql.js";
import { type SqlFragment, SqlParams } from "../filters/sql-params.js";
import { callerMatchesPermission } from "./caller-match.js";
import { addNames } from "./name-set.js";
import type { AccessPolicy, Caller, NameSet } from "./types.js";

/**
 * SQL twin of `grantFor(...).read` for lists: the assets whose attributes (the jsonb
 * column given) match a policy with a permission for this caller.
 */
export function compileReadableAssets(
  policies: readonly AccessPolicy[],
  caller: Caller,
  attributesColumnSql: string,
  firstParam: number,
): SqlFragment {
  if (caller.isAdmin) return { sql: "true", params: [] };
  const params = new SqlParams(firstParam);
  const clauses = policies
    .filter((p) => p.access_permissions.some((perm) => callerMatchesPermission(perm, caller)))
    .map((p) => policyClause(p, attributesColumnSql, params));
  return { sql: clauses.length ? `(${clauses.join(" OR ")})` : "false", params: params.values };
}

/**
 * SQL twin of `canReadEvent(event, grantFor(...))` for event lists: the event's asset matches
 * a policy with a permission for this caller that lets it read the event's arc_display_type.
 */
export function compileReadableEvents(
  policies: readonly AccessPolicy[],
  caller: Caller,
  columns: { assetAttributes: string; eventAttributes: string },
  firstParam: number,
): SqlFragment {
  if (caller.isAdmin) return { sql: "true", params: [] };
  const params = new SqlParams(firstParam);
  const clauses: string[] = [];
  for (const policy of policies) {
    let types: NameSet = new Set();
    let matched = false;
    for (const perm of policy.access_permissions) {
      if (!callerMatchesPermission(perm, caller)) continue;
      matched = true;
      types = addNames(types, perm.event_arc_display_type_read);
    }
    if (!matched || (types !== "*" && types.size === 0)) continue;
    const assets = policyClause(policy, columns.assetAttributes, params);
    if (types === "*") clauses.push(assets);
    else
      clauses.push(
        `(${assets} AND (${columns.eventAttributes}->>${params.add("arc_display_type")}::text) = ANY(${params.add([...types])}::text[]))`,
      );
  }
  return { sql: clauses.length ? `(${clauses.join(" OR ")})` : "false", params: params.values };
}

function policyClause(policy: AccessPolicy, column: string, params: SqlParams): string {
  return `(${params.embed((first) => compilePolicyFilters(policy.filters, column, first))})`;
}
