import { z } from "zod";
import { COMPLIANCE_TYPES } from "./types.js";

const text = z.string({ error: "must be a string" });
const clause = z.object(
  { or: z.array(text, { error: "must be an array of strings" }) },
  { error: "must be an object {or: [string]}" },
);
const clauses = z.array(clause, { error: "must be an array of {or: [string]}" });

/** int64 seconds: a JSON string or number, normalised to a canonical decimal string. */
const SECONDS_ERROR = "must be a non-negative whole number of seconds (string or number)";
const int64Seconds = z
  .union([z.string().regex(/^\d{1,18}$/, SECONDS_ERROR), z.int(SECONDS_ERROR).nonnegative(SECONDS_ERROR)], {
    error: SECONDS_ERROR,
  })
  .transform((value) => BigInt(value).toString());

/** A float that clients may also send as a string, as proto3 JSON allows. */
const float = z
  .union([z.number(), z.string().regex(/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/, "must be a number")], {
    error: "must be a number",
  })
  .transform(Number)
  .refine((value) => Number.isFinite(value) && value >= 0, "must be a finite number, zero or more");

/** Shape of a create request; which fields each type needs is checked afterwards. */
export const compliancePolicyBody = z.object({
  compliance_type: z.enum(COMPLIANCE_TYPES, {
    error: (issue) =>
      issue.input === undefined ? "is required" : `must be one of ${COMPLIANCE_TYPES.join(", ")}`,
  }),
  display_name: text.max(1024, "must be at most 1024 characters").optional(),
  description: text.max(4096, "must be at most 4096 characters").optional(),
  asset_filter: clauses.optional(),
  event_display_type: text.optional(),
  closing_event_display_type: text.optional(),
  time_period_seconds: int64Seconds.optional(),
  dynamic_window: int64Seconds.optional(),
  dynamic_variability: float.optional(),
  richness_assertions: clauses.optional(),
});

export type CompliancePolicyBody = z.output<typeof compliancePolicyBody>;
