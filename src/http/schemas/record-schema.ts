import { z } from "zod";
import type { FieldKind, RecordFields } from "../../formats/record/fields.js";

const attributes = z.record(z.string(), z.unknown());

const principalOut = z.object({
  issuer: z.string(),
  subject: z.string(),
  display_name: z.string(),
  email: z.string(),
});

const zodOfKind = {
  string: z.string(),
  number: z.number(),
  boolean: z.boolean(),
  strings: z.array(z.string()),
  attributes,
  principal: principalOut,
  unknown: z.unknown(),
} as const satisfies Record<FieldKind, z.ZodType>;

type ZodOfKind = typeof zodOfKind;

/**
 * The response schema of a record, made from the core's description of its fields, so the
 * OpenAPI documents list exactly the fields (in the order) the API writes.
 */
export function recordSchema<F extends RecordFields>(
  fields: F,
): z.ZodObject<{ [K in keyof F]: ZodOfKind[F[K]] }> {
  const shape = Object.fromEntries(Object.entries(fields).map(([name, kind]) => [name, zodOfKind[kind]]));
  return z.object(shape) as z.ZodObject<{ [K in keyof F]: ZodOfKind[F[K]] }>;
}
