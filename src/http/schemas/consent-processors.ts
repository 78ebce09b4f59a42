import { z } from "zod";

/** `POST /archivist/v1/consent/processors`: a processor to tell of the tenancy's consent revocations. */
export const processorRequest = z.object({
  display_name: z.string().trim().min(1).max(200).describe("who processes (a pipeline, an application)"),
  url: z.string().min(1).max(2000).describe("where the signed revocation notices are posted (http or https)"),
});

const processor = z.object({
  identity: z.string().describe("consent/processors/<uuid>"),
  display_name: z.string(),
  url: z.string(),
  created_at: z.string(),
  created_by: z.string(),
});

export const processorCreated = processor.extend({
  signing_secret: z
    .string()
    .describe("the Standard Webhooks secret (whsec_…) the notices are signed with; shown only now"),
});

export const processorList = z.object({ processors: z.array(processor) });

export const noticesQuery = z.object({
  vcon: z.string().max(200).optional().describe("vcon://<uuid>: only this vCon's revocations"),
  unacknowledged: z.enum(["true", "false"]).optional().describe("only the notices not acknowledged"),
});

const notice = z.object({
  identity: z.string(),
  processor: z.string(),
  processor_name: z.string(),
  vcon: z.string(),
  purposes: z.array(z.string()).describe("the purposes revoked; none: every purpose"),
  revocation: z.string().describe("the revocation record"),
  revoked_at: z.string().describe("when the service accepted the revocation"),
  state: z.enum(["pending", "acknowledged", "given_up"]),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_error: z.string().nullable(),
  acknowledged_at: z.string().nullable(),
  acknowledgement: z.string().nullable().describe("the vcon_revocation_acknowledged record"),
});

export const noticesOut = z.object({
  notices: z.array(notice),
  unacknowledged: z.array(notice).describe("the notices whose processor has not acknowledged them"),
});
