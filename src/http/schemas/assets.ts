import { z } from "zod";

const attributes = z.record(z.string(), z.unknown());
const principal = z.object({
  issuer: z.string().optional(),
  subject: z.string().optional(),
  display_name: z.string().optional(),
  email: z.string().optional(),
});

export const assetCreate = z.object({
  attributes: attributes.optional(),
  behaviours: z.array(z.string()).optional(),
  chain_id: z.string().optional(),
  proof_mechanism: z.enum(["MERKLE_LOG", "SIMPLE_HASH"]).optional(),
  public: z.boolean().optional(),
  storage_integrity: z.string().optional(),
});

export const eventCreate = z.object({
  operation: z.string().min(1, "operation is required"),
  behaviour: z.string().min(1, "behaviour is required"),
  event_attributes: attributes.optional(),
  asset_attributes: attributes.optional(),
  timestamp_declared: z.string().optional(),
  principal_declared: principal.optional(),
});

export const listQuery = z
  .object({ page_size: z.string().optional(), page_token: z.string().optional() })
  .catchall(z.union([z.string(), z.array(z.string())]));

export const assetQuery = z.object({ at_time: z.string().optional() });

export const principalOut = z.object({
  issuer: z.string(),
  subject: z.string(),
  display_name: z.string(),
  email: z.string(),
});

export const assetOut = z.object({
  identity: z.string(),
  behaviours: z.array(z.string()),
  attributes,
  confirmation_status: z.string(),
  tracked: z.string(),
  owner: z.string(),
  at_time: z.string(),
  storage_integrity: z.string(),
  proof_mechanism: z.string(),
  chain_id: z.string(),
  public: z.boolean(),
  tenant_identity: z.string(),
});

export const eventOut = z.object({
  identity: z.string(),
  asset_identity: z.string(),
  event_attributes: attributes,
  asset_attributes: attributes,
  operation: z.string(),
  behaviour: z.string(),
  timestamp_declared: z.string(),
  timestamp_accepted: z.string(),
  timestamp_committed: z.string(),
  principal_declared: principalOut,
  principal_accepted: principalOut,
  confirmation_status: z.string(),
  transaction_id: z.string(),
  block_number: z.number(),
  transaction_index: z.number(),
  from: z.string(),
  tenant_identity: z.string(),
  merklelog_entry: z.unknown(),
});

/** `POST /archivist/v2/assets:withEvents` (an extension of ours): an asset with its first Record events. */
export const assetCreateWithEvents = assetCreate.extend({ events: z.array(eventCreate) });

export const assetWithEventsOut = z.object({ asset: assetOut, events: z.array(eventOut) });
