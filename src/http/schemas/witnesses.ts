import { z } from "zod";

/** `GET /archivist/v1/merklelogs/{tenant}/tlog/witnesses`. */
export const witnessList = z.object({
  quorum: z.number().int().describe("cosignatures a checkpoint needs for its records to be UNEQUIVOCAL"),
  witnesses: z.array(
    z.object({
      name: z.string().describe("the witness's key name, as its cosignature lines carry it"),
      vkey: z.string().describe("its cosignature verification key (signed-note vkey)"),
      algorithm: z.enum(["Ed25519", "ML-DSA-44"]),
      last_cosigned_size: z.number().int().describe("the largest tree of this log it cosigned (0: none yet)"),
      last_cosigned_at: z
        .string()
        .describe("its newest cosignature's timestamp (RFC 3339); empty before its first"),
    }),
  ),
});
