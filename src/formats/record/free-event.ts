import type { ErasableMember } from "./erasable-member.js";
import type { RecordOf } from "./fields.js";

/** An asset-free event's fields as the API writes them; its leaf reads `FREE_EVENT_HASHED_FIELDS`. */
export const FREE_EVENT_FIELDS = {
  identity: "string",
  attributes: "attributes",
  trails: "strings",
  event_type: "string",
  origin_tenant: "string",
  created_by: "string",
  created_at: "number",
  confirmation_status: "string",
  merklelog_commit: "unknown",
} as const;

/** Search results add where the event sits in the log. */
export const FREE_EVENT_SEARCH_FIELDS = { ...FREE_EVENT_FIELDS, ledger_entry: "unknown" } as const;

/** An asset-free event as the API returns it, with its `erasable` member when it commits erasable attributes. */
export type FreeEventRecord = RecordOf<typeof FREE_EVENT_FIELDS> & { erasable?: ErasableMember };

/** An asset-free event as a search returns it. */
export type FreeEventSearchRecord = RecordOf<typeof FREE_EVENT_SEARCH_FIELDS> & { erasable?: ErasableMember };

/** What the mapper reads of a stored asset-free event. */
export interface FreeEventSource {
  id: string;
  tenant_id: string;
  attributes: Record<string, unknown>;
  trails: string[];
  event_type: string;
  created_by: string;
  created_at: number;
  confirmation_status: string;
  mmr_index: number | null;
  idtimestamp: string | null;
  content_hash: string | null;
  /** The values (or erasures) of its erasable attributes, when the store read or wrote them with it. */
  erasable?: ErasableMember | undefined;
}

/** An asset-free event as the API returns it. */
export function freeEventRecord(r: FreeEventSource): FreeEventRecord {
  const record: FreeEventRecord = {
    identity: `events/${r.id}`,
    attributes: r.attributes,
    trails: r.trails,
    event_type: r.event_type,
    origin_tenant: `tenant/${r.tenant_id}`,
    created_by: r.created_by,
    created_at: Number(r.created_at),
    confirmation_status: r.confirmation_status,
    merklelog_commit: {
      index: r.mmr_index !== null ? String(r.mmr_index) : "0",
      idtimestamp: r.idtimestamp ?? "",
    },
  };
  // Its one map is shown whole: no projection of it to take the member down to.
  if (r.erasable) record.erasable = r.erasable;
  return record;
}

/** An asset-free event as a search returns it, with its `ledger_entry`. */
export function freeEventSearchRecord(r: FreeEventSource): FreeEventSearchRecord {
  // `erasable` last, as on every record: it is beside the record's fields, not one of them.
  const { erasable, ...fields } = freeEventRecord(r);
  const record: FreeEventSearchRecord = {
    ...fields,
    ledger_entry: {
      index: r.mmr_index !== null ? String(r.mmr_index) : "",
      idtimestamp: r.idtimestamp ?? "",
      content_hash: r.content_hash ?? "",
      hash_schema: "eventsv1",
      log_id: `tenant/${r.tenant_id}`,
    },
  };
  if (erasable) record.erasable = erasable;
  return record;
}
