import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCaches } from "../../../src/caches.js";
import type { Keyring } from "../../../src/keys/keyring.js";
import { recordServiceEvent } from "../../../src/services/ledger/service-events.js";
import type { PendingFreeEvent } from "../../../src/services/write/free-event-group.js";
import { openWritePath, type WritePath } from "../../../src/services/write/write-path.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";

// Issue 73: the service's own records in a tenancy's log (a key rotation, an accepted restore) are
// written by the one write function, through the write path, as asset-free events charged to no
// quota: a tenancy whose quota is spent still gets them, its usage does not move, and their
// commit wakes the tenancy's committer as a caller's event's does.
describe(`the service's own events on the write path (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  let wp: WritePath;
  const tenant = randomUUID();
  const woken: string[] = [];

  beforeAll(async () => {
    ({ db, close } = await bareTestDb("service-events"));
    await migrate(db);
    await db.query(
      `insert into tenancies (id, display_name, quotas) values ($1, 't', '{"asset_free_events": 1}'::jsonb)`,
      [tenant],
    );
    wp = openWritePath({
      db,
      keys: {} as Keyring,
      caches: newCaches(),
      wake: { commit: (t) => woken.push(t) },
    });
  });
  afterAll(async () => close?.());

  const callers = (): PendingFreeEvent => ({
    id: randomUUID(),
    tenant_id: tenant,
    attributes: { by: "a caller" },
    trails: [],
    event_type: "",
    created_by: "caller",
    created_at: Date.now(),
    chargedTo: "tenancy",
  });
  const used = async () =>
    Number(
      (
        await db.query<{ n: number }>(
          "select n::int as n from usage_counters where tenant_id = $1 and kind = 'asset_free_events'",
          [tenant],
        )
      )[0]?.n ?? 0,
    );
  const queued = async (id: string) =>
    (await db.query("select 1 from event_queue where id = $1", [id])).length === 1;

  it("is stored past a spent quota, charged to no one, queued for the committer, and wakes it", async () => {
    await wp.writeFreeEvent(callers());
    expect(await used()).toBe(1);
    await expect(wp.writeFreeEvent(callers())).rejects.toMatchObject({ kind: "quota_exceeded" });
    woken.length = 0;

    const record = await recordServiceEvent({ writePath: wp }, tenant, { arc_display_type: "test_rotation" });
    expect(record).toMatchObject({
      identity: expect.stringMatching(/^events\/[0-9a-f-]{36}$/),
      attributes: { arc_display_type: "test_rotation" },
      trails: ["archivist/keys"],
      event_type: "",
      origin_tenant: `tenant/${tenant}`,
      created_by: "archivist",
      confirmation_status: "STORED",
    });
    expect(await used()).toBe(1);
    expect(await queued(String(record.identity).slice("events/".length))).toBe(true);
    expect(woken).toEqual([tenant]);
  });

  it("shares a group with a caller's events, which alone are charged: the one past the quota is refused", async () => {
    await db.query("update usage_counters set n = 0 where tenant_id = $1", [tenant]);
    const [first, second, service] = await Promise.allSettled([
      wp.writeFreeEvent(callers()),
      wp.writeFreeEvent(callers()),
      recordServiceEvent({ writePath: wp }, tenant, { arc_display_type: "test_restore" }),
    ]);
    expect(first.status).toBe("fulfilled");
    expect(second).toMatchObject({ status: "rejected", reason: { kind: "quota_exceeded" } });
    expect(service).toMatchObject({ status: "fulfilled", value: { created_by: "archivist" } });
    expect(await used()).toBe(1);
  });
});
