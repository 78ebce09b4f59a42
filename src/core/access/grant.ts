import { matchPolicyFilters } from "../filters/policy-match.js";
import { callerMatchesPermission } from "./caller-match.js";
import { addNames, intersectNames } from "./name-set.js";
import type { AccessGrant, AccessPermission, AccessPolicy, Caller, NameSet } from "./types.js";

/** Everything: what tenancy administrators get. */
export function fullGrant(): AccessGrant {
  return {
    read: true,
    readAttributes: "*",
    writeAttributes: "*",
    eventTypesRead: "*",
    eventTypesWrite: "*",
    behaviours: "*",
  };
}

/** Nothing: the grant of a caller no permission matches. */
function emptyGrant(): AccessGrant {
  return {
    read: false,
    readAttributes: new Set(),
    writeAttributes: new Set(),
    eventTypesRead: new Set(),
    eventTypesWrite: new Set(),
    behaviours: new Set(),
  };
}

/**
 * The caller's grant on an asset: the union over every policy whose filters match the
 * asset's attributes and every permission of it that matches the caller. Public-asset and
 * tenancy checks are the caller's business.
 */
export function grantFor(
  policies: readonly AccessPolicy[],
  caller: Caller,
  assetAttributes: Readonly<Record<string, unknown>>,
): AccessGrant {
  if (caller.isAdmin) return fullGrant();
  const grant = emptyGrant();
  for (const policy of policies) {
    if (!matchPolicyFilters(policy.filters, assetAttributes)) continue;
    for (const permission of policy.access_permissions)
      if (callerMatchesPermission(permission, caller)) addPermission(grant, permission);
  }
  return grant;
}

/**
 * The asset attributes readable on every asset the caller may see: the intersection over the
 * permissions that match it (each asset's grant is a union of some of them). Filters and
 * counts may use only these; another could tell, by a count of 1 or 0, a value the caller
 * may not read on some asset.
 */
export function filterableAttributes(policies: readonly AccessPolicy[], caller: Caller): NameSet {
  if (caller.isAdmin) return "*";
  let out: NameSet | undefined;
  for (const policy of policies)
    for (const p of policy.access_permissions) {
      if (!callerMatchesPermission(p, caller)) continue;
      const names = addNames(new Set(), [...p.asset_attributes_read, ...p.include_attributes]);
      out = out === undefined ? names : intersectNames(out, names);
    }
  return out ?? new Set();
}

/**
 * `include_attributes` (the older, OBAC-era spelling of "attributes shared") and
 * `asset_attributes_read` both name readable attributes, so readable = their union.
 */
function addPermission(grant: AccessGrant, p: AccessPermission): void {
  grant.read = true;
  grant.readAttributes = addNames(grant.readAttributes, [
    ...p.asset_attributes_read,
    ...p.include_attributes,
  ]);
  grant.writeAttributes = addNames(grant.writeAttributes, p.asset_attributes_write);
  grant.eventTypesRead = addNames(grant.eventTypesRead, p.event_arc_display_type_read);
  grant.eventTypesWrite = addNames(grant.eventTypesWrite, p.event_arc_display_type_write);
  grant.behaviours = addNames(grant.behaviours, p.behaviours);
}
