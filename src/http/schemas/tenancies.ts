import { z } from "zod";

export const tenancyRename = z.object({ display_name: z.string().min(1).max(128) });

/** A tenancy administrator, named by its identity provider's issuer and subject. */
const rootPrincipal = z.object({
  issuer: z.string().max(1024).optional(),
  subject: z.string().min(1, "subject is required").max(1024),
  display_name: z.string().max(1024).optional(),
  email: z.string().optional(),
});

export const rootPrincipalsBody = z.object({ root_principals: z.array(rootPrincipal) });
