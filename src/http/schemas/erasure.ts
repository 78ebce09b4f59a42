import { z } from "zod";

const names = z.array(z.string()).max(64);

/** `PUT /archivist/v1/erasure/policy`: the attribute names this tenancy's records commit by a salted hash. */
export const erasurePolicy = z.object({
  attributes: names.describe("attribute names (event or asset attributes) whose values can be erased"),
});

/** `POST /archivist/v1/erasures`: erase one record's, or a vCon's records', erasable attributes. */
export const erasureRequest = z.object({
  vcon: z.string().max(200).optional().describe("vcon://<uuid>: every record of the vCon"),
  record: z
    .string()
    .max(200)
    .optional()
    .describe(
      "one record: assets/<uuid>/events/<uuid> (an asset event, or an asset's NewAsset record: its creation attributes) or events/<uuid> (an asset-free event)",
    ),
  attributes: names.optional().describe("only these attributes (default: every erasable one)"),
  basis: z.string().min(1).max(1000).describe("the legal basis of the erasure, recorded with it"),
});

const erasedAttribute = z.object({ record: z.string(), attribute: z.string() });

export const erasureOut = z.object({
  erasures: z
    .array(z.string())
    .describe("the erasure records written (vcon_attributes_erased), one per asset"),
  erased: z.array(erasedAttribute),
  erased_blobs: z
    .array(z.string())
    .describe("the blobs (blobs/<uuid>) the erased records attach, deleted with their bytes"),
  already_erased: z.array(erasedAttribute),
});
