import { z } from "zod";

/** Numbers the interface types as strings: accepted as a JSON string or number, kept as a string. */
export const numericString = z
  .union([z.string().regex(/^-?\d+(\.\d+)?$/, "must be a number"), z.number()])
  .transform((v) => String(v));

/** `{or: [string]}` filter lists of access and compliance policies. */
export const orList = z.object({ or: z.array(z.string()) });

/** List query common to every collection. */
export const pageQuery = z.object({
  page_size: z.string().optional(),
  page_token: z.string().optional(),
});

export const errorBody = z.object({ code: z.number(), message: z.string(), details: z.array(z.unknown()) });

export const emptyBody = z.object({}).passthrough();
