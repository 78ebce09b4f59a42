import { z } from "zod";
import { filteredPageQuery, orList } from "./common.js";

const strings = z.array(z.string());

/** One access permission as answered (every list present). */
const accessPermission = z.object({
  asset_attributes_read: strings,
  asset_attributes_write: strings,
  behaviours: strings,
  event_arc_display_type_read: strings,
  event_arc_display_type_write: strings,
  include_attributes: strings,
  subjects: strings,
  user_attributes: z.array(orList),
});

// Shapes for the documents only: objects stay loose so unknown fields reach the policy core
// (validateAccessPolicyInput / validateAccessPolicyPatch), which refuses them naming each.
const permissionIn = z.looseObject({
  asset_attributes_read: strings.optional(),
  asset_attributes_write: strings.optional(),
  behaviours: strings.optional(),
  event_arc_display_type_read: strings.optional(),
  event_arc_display_type_write: strings.optional(),
  include_attributes: strings.optional(),
  subjects: strings.optional(),
  user_attributes: z.array(orList).optional(),
});

export const accessPolicyBody = z.looseObject({
  display_name: z.string().optional(),
  description: z.string().optional(),
  filters: z.array(orList).optional(),
  access_permissions: z.array(permissionIn).optional(),
});

export const accessPolicyList = filteredPageQuery("display_name", "description");

export const accessPolicy = z.object({
  identity: z.string(),
  display_name: z.string(),
  description: z.string(),
  filters: z.array(orList),
  access_permissions: z.array(accessPermission),
  tenant: z.string(),
});

export const accessPolicyListOut = z.object({
  access_policies: z.array(accessPolicy),
  next_page_token: z.string(),
});
