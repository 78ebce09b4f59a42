import { z } from "zod";

/** `{or: [string]}` filter lists of access and compliance policies. */
export const orList = z.object({ or: z.array(z.string()) });

/** List query common to every collection. */
export const pageQuery = z.object({
  page_size: z.string().optional(),
  page_token: z.string().optional(),
});

export const emptyBody = z.object({}).passthrough();
