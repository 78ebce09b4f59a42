import { isoTime } from "../ids.js";
import { type CoveringSeal, committedTrust, confirmEntry, unequivocalEntry } from "../ledger/trust.js";
import { type ErasableMember, shownErasable } from "./erasable-member.js";
import type { Face } from "./face.js";
import type { RecordOf, RecordPrincipal } from "./fields.js";

/** An asset event's fields as the API writes them; the leaf and SIMPLE_HASH read a subset (`hashed-fields.ts`). */
export const ASSET_EVENT_FIELDS = {
  identity: "string",
  asset_identity: "string",
  event_attributes: "attributes",
  asset_attributes: "attributes",
  operation: "string",
  behaviour: "string",
  timestamp_declared: "string",
  timestamp_accepted: "string",
  timestamp_committed: "string",
  principal_declared: "principal",
  principal_accepted: "principal",
  confirmation_status: "string",
  transaction_id: "string",
  block_number: "number",
  transaction_index: "number",
  from: "string",
  tenant_identity: "string",
  merklelog_entry: "unknown",
} as const;

/**
 * An asset event as the API returns it: also the JSON its leaf hash covers, but for its
 * `erasable` member (outside the leaf), carried when the record commits erasable attributes.
 */
export type AssetEventRecord = RecordOf<typeof ASSET_EVENT_FIELDS> & { erasable?: ErasableMember };

/** What the mapper reads of a stored asset event. */
export interface AssetEventSource {
  id: string;
  asset_id: string;
  tenant_id: string;
  operation: string;
  behaviour: string;
  event_attributes: Record<string, unknown>;
  asset_attributes: Record<string, unknown>;
  timestamp_declared: Date;
  timestamp_accepted: Date;
  timestamp_committed: Date | null;
  principal_declared: RecordPrincipal;
  principal_accepted: RecordPrincipal;
  confirmation_status: string;
  proof_mechanism: string;
  mmr_index: number | null;
  idtimestamp: string | null;
  merklelog_entry: Record<string, unknown> | null;
  transaction_id: string;
  block_number: number;
  transaction_index: number;
  from_address: string;
  /** The first seal covering the event's log entry. */
  covering_seal: CoveringSeal | null;
  /** The values (or erasures) of its erasable attributes, when the store read or wrote them with it. */
  erasable?: ErasableMember | undefined;
}

const emptyEntry = { commit: null, confirm: null, unequivocal: null };

/**
 * The trust fields of an event. A committed event of a MERKLE_LOG asset takes them from the
 * first seal covering it (the workers no longer rewrite the row); values written on the row by
 * earlier versions win, so records read the same as before. Others keep what their row says.
 */
function trustFields(row: AssetEventSource) {
  const stored = {
    confirmation_status: row.confirmation_status,
    transaction_id: row.transaction_id,
    block_number: Number(row.block_number),
    transaction_index: Number(row.transaction_index),
    merklelog_entry: (row.merklelog_entry ?? emptyEntry) as Record<string, unknown>,
  };
  if (row.proof_mechanism !== "MERKLE_LOG" || row.mmr_index === null) return stored;
  const seal = row.covering_seal;
  const anchored = seal && committedTrust(seal) === "UNEQUIVOCAL" ? seal : null;
  const entry = stored.merklelog_entry;
  return {
    confirmation_status: committedTrust(seal),
    transaction_id: stored.transaction_id || (anchored?.anchor_tx_hash ?? ""),
    block_number: stored.block_number || (anchored?.anchored_block ?? 0),
    transaction_index: stored.transaction_index || (anchored?.anchor_tx_index ?? 0),
    merklelog_entry: {
      commit: entry.commit ?? { index: String(row.mmr_index), idtimestamp: row.idtimestamp ?? "" },
      confirm: entry.confirm ?? (seal ? confirmEntry(seal) : null),
      unequivocal: entry.unequivocal ?? (anchored ? unequivocalEntry(anchored) : null),
    },
  };
}

/** An asset event as the API returns it; `assetAttributes` replaces the asset attributes the caller may not all see. */
export function assetEventRecord(
  row: AssetEventSource,
  face: Face = "assets",
  assetAttributes?: Record<string, unknown>,
): AssetEventRecord {
  const trust = trustFields(row);
  const record: AssetEventRecord = {
    identity: `${face}/${row.asset_id}/events/${row.id}`,
    asset_identity: `${face}/${row.asset_id}`,
    event_attributes: row.event_attributes,
    asset_attributes: assetAttributes ?? row.asset_attributes,
    operation: row.operation,
    behaviour: row.behaviour,
    timestamp_declared: isoTime(row.timestamp_declared),
    timestamp_accepted: isoTime(row.timestamp_accepted),
    timestamp_committed: isoTime(row.timestamp_committed),
    principal_declared: row.principal_declared,
    principal_accepted: row.principal_accepted,
    confirmation_status: trust.confirmation_status,
    transaction_id: trust.transaction_id,
    block_number: trust.block_number,
    transaction_index: trust.transaction_index,
    from: row.from_address,
    tenant_identity: `tenant/${row.tenant_id}`,
    merklelog_entry: trust.merklelog_entry,
  };
  const erasable = row.erasable && shownErasable(row.erasable, record);
  if (erasable) record.erasable = erasable;
  return record;
}
