import { z } from "zod";
import { ASSET_EVENT_FIELDS, ASSET_FIELDS } from "../../core/record/index.js";
import { recordSchema } from "./record-schema.js";

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

/** An asset as the API returns it. */
export const assetOut = recordSchema(ASSET_FIELDS);

/** An asset event as the API returns it. */
export const eventOut = recordSchema(ASSET_EVENT_FIELDS);

/** `POST /archivist/v2/assets:withEvents` (an extension of ours): an asset with its first Record events. */
export const assetCreateWithEvents = assetCreate.extend({ events: z.array(eventCreate) });

export const assetWithEventsOut = z.object({ asset: assetOut, events: z.array(eventOut) });
