import { randomUUID } from "node:crypto";
import type { NewAssetEvent } from "../../src/store/records/asset-event-writes.js";

const nobody = { issuer: "", subject: "", display_name: "", email: "" };

/** A Record event row as the service writes one (STORED), for tests that write through the store. */
export function assetEventRow(tenant: string, asset: string, proof = "MERKLE_LOG"): NewAssetEvent {
  return {
    id: randomUUID(),
    asset_id: asset,
    tenant_id: tenant,
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: { k: "v" },
    asset_attributes: {},
    timestamp_declared: new Date(),
    timestamp_accepted: new Date(),
    principal_declared: nobody,
    principal_accepted: nobody,
    confirmation_status: "STORED",
    proof_mechanism: proof,
    public: false,
    from_address: "",
  };
}
