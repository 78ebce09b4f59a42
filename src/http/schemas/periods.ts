import { z } from "zod";

const b64 = z.string().describe("a SHA-256 hash, base64");

/** `GET /archivist/v1/merklelogs/{tenant}/tlog/periods`: the log's chain of period roots. */
export const periodChainAnswer = z.object({
  head: z
    .string()
    .describe("the published checkpoint (a signed note, with its cosignatures) the proofs reach"),
  periods: z.array(
    z.object({
      period: z.number().int().describe("0 for the log's first period"),
      start: z
        .number()
        .int()
        .describe("the index of the period's first entry (its link entry, after period 0)"),
      end: z
        .number()
        .int()
        .optional()
        .describe(
          "a closed period's final size: the index of the next period's link entry; absent while open",
        ),
      closed_at: z.string().optional().describe("when the period closed (RFC 3339)"),
      checkpoint: z
        .string()
        .optional()
        .describe("the closed period's final checkpoint, with its cosignatures"),
      consistency: z
        .array(b64)
        .optional()
        .describe("RFC 9162 consistency proof from the final checkpoint to the head"),
      link_inclusion: z
        .array(b64)
        .optional()
        .describe("RFC 9162 inclusion proof of the next period's link entry (index `end`) in the head"),
    }),
  ),
});
