import { z } from "zod";

/** `{or: [string]}` filter lists of access and compliance policies. */
export const orList = z.object({ or: z.array(z.string()) });

/** List query common to every collection. */
export const pageQuery = z.object({
  page_size: z.string().optional(),
  page_token: z.string().optional(),
});

/** A list's query: equality filters on `fields` (each one value or several), then `pageQuery`'s. */
export function filteredPageQuery<K extends string>(...fields: K[]) {
  const filter = () => z.union([z.string(), z.array(z.string())]).optional();
  const filters = Object.fromEntries(fields.map((f) => [f, filter()])) as Record<
    K,
    ReturnType<typeof filter>
  >;
  return z.object({ ...filters, ...pageQuery.shape });
}

export const emptyBody = z.object({}).passthrough();

/** `erasable_attributes` of a write: which attributes are committed by a salted hash (at most 64). */
export const erasableAttributes = (which = "attributes", record = "the record") =>
  z
    .array(z.string())
    .max(64)
    .optional()
    .describe(
      `${which} to commit by a salted hash, their values kept beside ${record} so that they can be erased (ours: docs/vcon-lifecycle.md)`,
    );
