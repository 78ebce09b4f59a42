import { randomUUID } from "node:crypto";
import type { Queryable } from "../../src/store/drivers/db.js";
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

/** A tenancy and one asset of it, as rows (for tests that write events through the store). */
export async function tenancyWithAsset(
  db: Queryable,
  proof = "MERKLE_LOG",
): Promise<{ tenant: string; asset: string }> {
  const tenant = randomUUID();
  const asset = randomUUID();
  await db.query("insert into tenancies (id, display_name) values ($1, 't')", [tenant]);
  await db.query("insert into assets (id, tenant_id, proof_mechanism) values ($1, $2, $3)", [
    asset,
    tenant,
    proof,
  ]);
  return { tenant, asset };
}
