import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdTimestampGenerator } from "../../../src/core/log/idtimestamp.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import { indexFactsBetween } from "../../../src/store/ledger/vindex.js";
import { insertAssetEvents } from "../../../src/store/records/asset-event-writes.js";
import { insertFreeEvents } from "../../../src/store/records/free-events.js";
import { FreshIndexFacts } from "../../../src/vindex/fresh-facts.js";
import { commitBatch } from "../../../src/workers/commit-batch.js";
import { assetEventRow, tenancyWithAsset } from "../../helpers/asset-event-row.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";

// A revision takes the facts of the entries this process committed from the committer: they must
// be what the database gives back for those entries, record for record.
describe(`the committer's index facts (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, close } = await bareTestDb("index-facts"));
    await migrate(db);
  });
  afterAll(async () => close?.());

  it("are the facts the database reads back, for every kind of subject and issuer", async () => {
    const { tenant, asset } = await tenancyWithAsset(db);
    const subjects: unknown[] = [
      `vcon://${randomUUID()}`,
      `VCON://${randomUUID().toUpperCase()}`,
      "a plain subject, ünïcödé",
      7,
      { nested: "object" },
      null,
      undefined,
    ];
    await insertAssetEvents(
      db,
      subjects.map((subject) => ({
        ...assetEventRow(tenant, asset),
        event_attributes: subject === undefined ? { k: "v" } : { subject, scitt_issuer: "not read" },
      })),
    );
    const free = [
      { scitt_issuer: "did:web:issuer.example", subject: "urn:statement" },
      { scitt_issuer: 12, subject: `vcon://${randomUUID()}` },
      { subject: ["no"] },
      {},
    ];
    await insertFreeEvents(
      db,
      free.map((attributes, k) => ({
        id: randomUUID(),
        tenant_id: tenant,
        attributes,
        trails: [],
        event_type: "",
        created_by: "",
        created_at: Date.now() + k,
      })),
    );
    const fresh = new FreshIndexFacts();
    const gen = new IdTimestampGenerator(1);
    for (const limit of [4, 100]) {
      const r = await db.transaction((tx) =>
        commitBatch(tx, tenant, gen, limit, undefined, { indexFacts: true }),
      );
      fresh.remember(tenant, r.facts ?? []);
    }
    const n = subjects.length + free.length;
    const stored = await indexFactsBetween(db, tenant, 0, n);
    expect(stored.map((f) => f.subject)).toContain("a plain subject, ünïcödé");
    expect(stored.filter((f) => f.issuer !== null)).toHaveLength(1);
    expect(fresh.between(tenant, 0, n)).toEqual(stored);
    // Once a revision has moved past them, the earlier ones are gone; what is kept still matches.
    expect(fresh.between(tenant, 3, n)).toEqual(stored.slice(3));
    expect(fresh.between(tenant, 0, n)).toBeUndefined();
    // A batch committed without the index asks for none.
    expect((await db.transaction((tx) => commitBatch(tx, tenant, gen, 10))).facts).toBeUndefined();
  });
});
