import { z } from "zod";
import { ASSET_FIELDS } from "../../formats/record/asset.js";
import { ASSET_EVENT_FIELDS } from "../../formats/record/asset-event.js";
import { erasableAttributes } from "./common.js";
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
  erasable_attributes: erasableAttributes("creation attributes", "the NewAsset record"),
});

export const eventCreate = z.object({
  operation: z.string().min(1, "operation is required"),
  behaviour: z.string().min(1, "behaviour is required"),
  event_attributes: attributes.optional(),
  asset_attributes: attributes.optional(),
  timestamp_declared: z.string().optional(),
  principal_declared: principal.optional(),
  erasable_attributes: erasableAttributes(),
});

export const listQuery = z
  .object({ page_size: z.string().optional(), page_token: z.string().optional() })
  .catchall(z.union([z.string(), z.array(z.string())]));

export const assetQuery = z.object({ at_time: z.string().optional() });

/** An asset as the API returns it. */
export const assetOut = recordSchema(ASSET_FIELDS);

/**
 * An asset event as the API returns it: the model's fields. A record committing erasable attributes
 * also carries `erasable` (outside its leaf; docs/vcon-lifecycle.md), which the model does not list.
 */
export const eventOut = recordSchema(ASSET_EVENT_FIELDS);

/** `POST /archivist/v2/assets:withEvents` (an extension of ours): an asset with its first Record events. */
export const assetCreateWithEvents = assetCreate.extend({ events: z.array(eventCreate) });

export const assetWithEventsOut = z.object({ asset: assetOut, events: z.array(eventOut) });

/** What a record made under `Prefer: return=minimal` (RFC 7240) is answered with: its identity. */
const madeIdentity = z.object({ identity: z.string() });

/** `assets:withEvents` under `Prefer: return=minimal`: the identities of the asset and its events. */
export const assetWithEventsMinimal = z.object({ asset: madeIdentity, events: z.array(madeIdentity) });

/** `assets:withEvents`' answer: the records, or their identities when the caller prefers `return=minimal`. */
export const assetWithEventsAnswer = z.union([assetWithEventsOut, assetWithEventsMinimal]);

/** Items one batch of ours may carry: a batch's items share one request, not one transaction. */
const MAX_BATCH_ITEMS = 100;

/** A batch extension's body: 1 to `MAX_BATCH_ITEMS` items, each its own request's body. */
const batchOf = <T extends z.ZodType>(item: T) =>
  z.object({ requests: z.array(item).min(1).max(MAX_BATCH_ITEMS) });

/** One item's failure: the status and `{code, message, details}` its own request would have answered. */
const itemError = z.object({
  status: z.number().int(),
  code: z.number().int(),
  message: z.string(),
  details: z.array(z.unknown()),
});

/** A batch extension's answer: per item, in the order of `requests`, what its own request would have answered. */
const answersOf = <T extends z.ZodType>(answer: T) =>
  z.object({ responses: z.array(z.union([answer, z.object({ error: itemError })])) });

/**
 * `POST /archivist/v2/assets:batchWithEvents` (an extension of ours): many `assets:withEvents`
 * creations in one request. Each item is checked, authorised and committed as its own
 * `assets:withEvents` would be (its asset and events all or none); items fail alone.
 */
export const assetBatchWithEvents = batchOf(assetCreateWithEvents);

export const assetBatchWithEventsOut = answersOf(assetWithEventsOut);
export const assetBatchWithEventsMinimal = answersOf(assetWithEventsMinimal);
/** What the route answers (documented): the records, or under `return=minimal` their identities. */
export const assetBatchWithEventsAnswer = answersOf(assetWithEventsAnswer);

/**
 * `POST /archivist/v2/assets/-/events:batch` (an extension of ours): many `POST
 * …/assets/{uuid}/events` in one request, each naming its asset (`assets/<uuid>`; a malformed
 * one is that item's 400). Each item is checked, authorised and committed as its own request
 * would be; items fail alone.
 */
export const assetEventBatch = batchOf(z.object({ asset_identity: z.string(), event: eventCreate }));

export const assetEventBatchOut = answersOf(eventOut);
export const assetEventBatchMinimal = answersOf(madeIdentity);
/** What the route answers (documented): the events, or under `return=minimal` their identities. */
export const assetEventBatchAnswer = answersOf(z.union([eventOut, madeIdentity]));
