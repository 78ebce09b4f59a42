import { z } from "zod";

const term = z.string().max(2048);

/** `GET /archivist/v1/statements`: each given field must match; at least one is required. */
export const statementQuery = z.object({
  subject: term.optional().describe("the statement's subject (CWT sub): tel:+…, vcon://…, any string"),
  issuer: term.optional().describe("the statement's issuer (CWT iss)"),
  payload_hash: z.string().max(128).optional().describe("the payload's SHA-256 in hex"),
  page_size: z.string().optional(),
  page_token: z.string().optional(),
});

const foundStatement = z.object({
  identity: z.string().describe("the record: assets/<uuid>/events/<uuid> or events/<uuid>"),
  kind: z.enum(["registered", "asset_event", "event"]),
  entry_id: z.string().optional().describe("SCRAPI entry id of a registered statement"),
  subject: z.string(),
  issuer: z.string(),
  payload_hash: z.string(),
  payload_hash_alg: z.string(),
  payload_preimage_content_type: z.string(),
  event_type: z.string(),
  timestamp_accepted: z.string(),
  confirmation_status: z.string(),
});

export const statementList = z.object({
  statements: z.array(foundStatement),
  next_page_token: z.string(),
});
