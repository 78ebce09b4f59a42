import { isoTime } from "../core/api/ids.js";
import { committedTrust, confirmEntry, unequivocalEntry } from "../core/ledger/trust.js";
import type { StoredAssetEvent } from "./asset-events.js";
import type { AssetRow } from "./assets.js";

/** `assets/…` on private routes, `publicassets/…` on the public ones. */
export type Face = "assets" | "publicassets";

/** API shape of an asset, with the attributes the caller may see. */
export function assetOut(
  row: AssetRow,
  attributes: Record<string, unknown>,
  face: Face = "assets",
  atTime?: Date,
) {
  return {
    identity: `${face}/${row.id}`,
    behaviours: row.behaviours,
    attributes,
    confirmation_status: row.confirmation_status,
    tracked: row.tracked,
    owner: row.owner,
    at_time: isoTime(atTime ?? new Date()),
    storage_integrity: "TENANT_STORAGE",
    proof_mechanism: row.proof_mechanism,
    chain_id: row.chain_id,
    public: row.public,
    tenant_identity: `tenant/${row.tenant_id}`,
  };
}

export type AssetOut = ReturnType<typeof assetOut>;

const emptyEntry = { commit: null, confirm: null, unequivocal: null };

/**
 * The trust fields of an event. A committed event of a MERKLE_LOG asset takes them from the
 * first seal covering it (the workers no longer rewrite the row); values written on the row by
 * earlier versions win, so records read the same as before. Others keep what their row says.
 */
function trustFields(row: StoredAssetEvent) {
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

/** API shape of an asset event; also the exact JSON that the ledger's leaf hash covers. */
export function eventOut(
  row: StoredAssetEvent,
  face: Face = "assets",
  assetAttributes?: Record<string, unknown>,
) {
  const trust = trustFields(row);
  return {
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
}

export type EventOut = ReturnType<typeof eventOut>;
