import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import { tenantsWithStoredRecords } from "../../../src/store/ledger/ledger.js";
import { insertAssetEvents } from "../../../src/store/records/asset-event-writes.js";
import { assetEventRow } from "../../helpers/asset-event-row.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";

// The committer's sweep: which tenancies have records waiting for their log.
describe(`tenancies with records to commit (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  const tenancy = async (name: string) => {
    const id = randomUUID();
    await db.query("insert into tenancies (id, display_name) values ($1, $2)", [id, name]);
    return id;
  };
  // Written as the service writes events (MERKLE_LOG ones join the commit queue); a committed
  // one has left the queue, as the committer takes it.
  const assetEvent = async (tenant: string, status: string, proof: string) => {
    const asset = randomUUID();
    await db.query("insert into assets (id, tenant_id, proof_mechanism) values ($1, $2, $3)", [
      asset,
      tenant,
      proof,
    ]);
    const row = assetEventRow(tenant, asset, proof);
    await insertAssetEvents(db, [row]);
    if (status === "COMMITTED") await db.query("delete from asset_event_queue where id = $1", [row.id]);
  };
  const freeEvent = async (tenant: string, status: string) =>
    db.query("insert into events (id, tenant_id, created_at, confirmation_status) values ($1, $2, 0, $3)", [
      randomUUID(),
      tenant,
      status,
    ]);

  beforeAll(async () => {
    ({ db, close } = await bareTestDb("stored-tenancies"));
    await migrate(db);
  });
  afterAll(async () => close?.());

  it("names every tenancy with a STORED log record, and no other", async () => {
    const merkle = await tenancy("merkle");
    const free = await tenancy("free");
    const simple = await tenancy("simple hash only");
    const done = await tenancy("all committed");
    await tenancy("empty");
    for (let i = 0; i < 3; i++) await assetEvent(merkle, "COMMITTED", "MERKLE_LOG");
    await assetEvent(merkle, "STORED", "MERKLE_LOG");
    await freeEvent(free, "COMMITTED");
    await freeEvent(free, "STORED");
    // Simple-hash events wait for the anchorer's batch, not for a log.
    await assetEvent(simple, "STORED", "SIMPLE_HASH");
    await assetEvent(done, "COMMITTED", "MERKLE_LOG");
    await freeEvent(done, "COMMITTED");
    const names = new Map<string, string>([
      [merkle, "merkle"],
      [free, "free"],
    ]);
    const found = (await tenantsWithStoredRecords(db)).map((t) => names.get(t) ?? t).sort();
    expect(found).toEqual(["free", "merkle"]);
  });
});
