import { isoTime } from "../ids.js";
import type { Face } from "./face.js";
import type { RecordOf } from "./fields.js";

/** An asset's fields as the API writes them. */
export const ASSET_FIELDS = {
  identity: "string",
  behaviours: "strings",
  attributes: "attributes",
  confirmation_status: "string",
  tracked: "string",
  owner: "string",
  at_time: "string",
  storage_integrity: "string",
  proof_mechanism: "string",
  chain_id: "string",
  public: "boolean",
  tenant_identity: "string",
} as const;

/** An asset as the API returns it. */
export type AssetRecord = RecordOf<typeof ASSET_FIELDS>;

/** What the mapper reads of a stored asset. */
export interface AssetSource {
  id: string;
  tenant_id: string;
  behaviours: string[];
  proof_mechanism: string;
  public: boolean;
  chain_id: string;
  tracked: string;
  owner: string;
  confirmation_status: string;
}

/** An asset as the API returns it, with the attributes the caller may see. */
export function assetRecord(
  row: AssetSource,
  attributes: Record<string, unknown>,
  face: Face = "assets",
  atTime?: Date,
): AssetRecord {
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
