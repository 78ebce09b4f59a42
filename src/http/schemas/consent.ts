import { z } from "zod";

/** A purpose as a query names it: free text of the deployment's choosing, one purpose, no commas. */
const onePurpose = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^,.\p{Cc}]+$/u, "one purpose: no commas, dots or control characters");

export const consentQuery = z.object({
  purpose: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^,\p{Cc}]+$/u, "one purpose: no commas or control characters")
    .optional(),
});

/** `POST /archivist/v1/consent/vcons/{uuid}/verifications`: verify consent before a processing, and record it. */
export const verificationRequest = z.object({
  purpose: onePurpose.describe("the purpose the processing is for"),
  operation: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9_.:-]+$/, "an operation name")
    .describe("the processing it lets through, e.g. vcon_model_training_initiated"),
});

const state = z.enum(["granted", "revoked", "never_asked"]);

export const verificationOut = z.object({
  vcon: z.string(),
  purpose: z.string(),
  state,
  decided_by: z.string().optional().describe("the grant or revocation that decided the state"),
  verification: z
    .string()
    .nullable()
    .describe("the vcon_consent_verified record written when granted; null (nothing recorded) otherwise"),
});

const role = z.enum(["grant", "review", "revocation"]);

/** `GET /archivist/v1/consent/vcons/{uuid}`: the vCon's consent per purpose, with the records and receipts that say so. */
export const consentOut = z.object({
  vcon: z.string().describe("vcon://<uuid>"),
  holder: z.string().describe("the tenancy whose records decide the consent (tenant/<uuid>): the caller's"),
  consents: z.array(
    z.object({
      purpose: z.string(),
      state: z.enum(["granted", "revoked", "never_asked"]),
      decided_by: z.string().optional().describe("the grant or revocation that decided the state"),
      records: z.array(z.object({ identity: z.string(), role })),
    }),
  ),
  records: z.array(
    z.object({
      record: z.record(z.string(), z.unknown()).describe("the consent record as the API returns it"),
      role,
      purposes: z
        .array(z.string())
        .describe("the purposes it names; none: every purpose (a review or revocation)"),
      receipt: z
        .string()
        .nullable()
        .describe("its COSE receipt (MMR profile), base64; null while not yet sealed"),
    }),
  ),
  foreign: z
    .array(z.object({ identity: z.string(), tenant: z.string(), role, purposes: z.array(z.string()) }))
    .describe("consent records of other tenancies shared with the caller: shown, deciding nothing"),
});
