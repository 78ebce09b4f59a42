import { z } from "zod";

export const memberList = z.object({
  member_state: z.string().optional(),
  page_size: z.string().optional(),
  page_token: z.string().optional(),
});

export const memberPatch = z.object({ roles: z.array(z.string()).optional() });

export const member = z.object({
  identity: z.string(),
  display_name: z.string(),
  email: z.string(),
  active: z.boolean(),
  roles: z.array(z.string()),
});

export const memberListOut = z.object({
  members: z.array(member),
  page_token: z.string(),
  next_page_token: z.string(),
});

const membership = z.object({ display_name: z.string(), identity: z.string(), tenant_id: z.string() });

export const membershipListOut = z.object({ memberships: z.array(membership), next_page_token: z.string() });
