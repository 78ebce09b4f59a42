import { z } from "zod";
import { filteredPageQuery } from "./common.js";

const claims = z.record(z.string(), z.string());

export const applicationCreate = z.object({
  display_name: z.string().min(1, "display_name is required"),
  custom_claims: claims.optional(),
  roles: z.array(z.string()).optional(),
});

export const applicationPatch = z.object({
  display_name: z.string().min(1).optional(),
  custom_claims: claims.optional(),
  roles: z.array(z.string()).optional(),
});

export const applicationList = filteredPageQuery("display_name");

export const application = z.object({
  identity: z.string(),
  client_id: z.string(),
  display_name: z.string(),
  tenant_id: z.string(),
  custom_claims: claims,
  roles: z.array(z.string()),
  credentials: z.array(z.object({ secret: z.string(), valid_from: z.string(), valid_until: z.string() })),
});
