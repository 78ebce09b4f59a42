import { isoTime } from "../core/api/ids.js";
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

/** API shape of an asset event; also the exact JSON that the ledger's leaf hash covers. */
export function eventOut(
  row: StoredAssetEvent,
  face: Face = "assets",
  assetAttributes?: Record<string, unknown>,
) {
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
    confirmation_status: row.confirmation_status,
    transaction_id: row.transaction_id,
    block_number: Number(row.block_number),
    transaction_index: Number(row.transaction_index),
    from: row.from_address,
    tenant_identity: `tenant/${row.tenant_id}`,
    merklelog_entry: row.merklelog_entry ?? emptyEntry,
  };
}

export type EventOut = ReturnType<typeof eventOut>;
