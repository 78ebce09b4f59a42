import { policyFiltersToWire } from "../filters/policy-filter.js";
import { userAttributeFiltersToWire } from "../filters/user-attributes.js";
import type { AccessPermission } from "./types.js";

/** An access permission as the API shows it (filter strings exactly as they were sent). */
export function accessPermissionToWire(p: AccessPermission) {
  return {
    asset_attributes_read: [...p.asset_attributes_read],
    asset_attributes_write: [...p.asset_attributes_write],
    behaviours: [...p.behaviours],
    event_arc_display_type_read: [...p.event_arc_display_type_read],
    event_arc_display_type_write: [...p.event_arc_display_type_write],
    include_attributes: [...p.include_attributes],
    subjects: [...p.subjects],
    user_attributes: userAttributeFiltersToWire(p.user_attributes),
  };
}

/** The policy fields as the API shows them; identity and tenant are the caller's to add. */
export function accessPolicyToWire(p: {
  display_name: string;
  description: string;
  filters: Parameters<typeof policyFiltersToWire>[0];
  access_permissions: readonly AccessPermission[];
}) {
  return {
    display_name: p.display_name,
    description: p.description,
    filters: policyFiltersToWire(p.filters),
    access_permissions: p.access_permissions.map(accessPermissionToWire),
  };
}
