import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCaches } from "../../../src/caches.js";
import { toBase64 } from "../../../src/formats/crypto/bytes.js";
import { commit } from "../../../src/formats/record/erasable.js";
import type { Keyring } from "../../../src/keys/keyring.js";
import type { PendingEvent } from "../../../src/services/write/asset-event-group.js";
import type { PendingFreeEvent } from "../../../src/services/write/free-event-group.js";
import { openWritePath, type WritePath } from "../../../src/services/write/write-path.js";
import type { WrittenRecord } from "../../../src/services/write/write-records.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import { getAssetEvent } from "../../../src/store/records/asset-events.js";
import type { AssetRow } from "../../../src/store/records/assets.js";
import { type ErasableValue, eraseValues } from "../../../src/store/records/erasable-values.js";
import { freeEventSearch, getFreeEvent } from "../../../src/store/records/free-events.js";
import { assetEventList } from "../../../src/store/records/record-lists.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";

const nobody = { issuer: "", subject: "", display_name: "", email: "" };

/** A value committed as the write path commits it: its commitment in the record, value and salt beside. */
function erasable(value: string): { attribute: Record<string, unknown>; value: ErasableValue } {
  const salt = new Uint8Array(randomBytes(32));
  const c = commit(value, salt);
  return { attribute: c, value: { commitment: c.salted_sha256, value, salt: toBase64(salt) } };
}

// Issue 73: a record carries its erasable values into its group's own transaction. A refused record,
// or a group that does not commit, leaves none; a record is never stored without them; the store's
// record queries return them joined; an erasure is written by the same group commit.
describe(`erasable values on the write path (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  const tenant = randomUUID();
  const woken: string[] = [];
  const pathOver = (over: Db): WritePath =>
    openWritePath({
      db: over,
      keys: { derived: async () => "0xwallet" } as unknown as Keyring,
      caches: newCaches(),
      wake: { commit: (t) => woken.push(t) },
    });

  beforeAll(async () => {
    ({ db, close } = await bareTestDb("erasable-values"));
    await migrate(db);
    await db.query(
      `insert into tenancies (id, display_name, quotas) values ($1, 't', '{"asset_free_events": 1}'::jsonb)`,
      [tenant],
    );
  });
  afterAll(async () => close?.());

  async function asset(attributes: Record<string, unknown>): Promise<string> {
    const id = randomUUID();
    await db.query(
      "insert into assets (id, tenant_id, proof_mechanism, attributes) values ($1, $2, 'MERKLE_LOG', $3::jsonb)",
      [id, tenant, JSON.stringify(attributes)],
    );
    return id;
  }

  /** An event carrying a party's telephone number as an erasable value, written only while its asset is open. */
  function event(assetId: string, tel: string, assetAttributes: Record<string, unknown> = {}) {
    const party = erasable(tel);
    const pending: PendingEvent = {
      assetId,
      tenantId: tenant,
      operation: "Record",
      behaviour: "RecordEvidence",
      eventAttributes: { party_tel: party.attribute, n: randomUUID() },
      assetAttributes,
      declared: nobody,
      accepted: nobody,
      authorize: (a: AssetRow) => {
        if (a.attributes.stage !== "open") throw new Error("the asset is closed");
      },
      erasables: [party.value],
    };
    return { pending, commitment: party.value.commitment };
  }

  const kept = async (commitment: string) =>
    Number(
      (
        await db.query<{ n: number }>(
          "select count(*)::int as n from erasable_values where commitment = $1",
          [commitment],
        )
      )[0]?.n,
    );
  const events = async (assetId: string) =>
    Number(
      (
        await db.query<{ n: number }>("select count(*)::int as n from asset_events where asset_id = $1", [
          assetId,
        ])
      )[0]?.n,
    );

  it("stores an event's values in its group's transaction; a refused event beside it leaves none", async () => {
    const wp = pathOver(db);
    const open = event(await asset({ stage: "open" }), "+1 555 0100");
    const closed = event(await asset({ stage: "closed" }), "+1 555 0199");
    // Posted together, so one group: written optimistically on PostgreSQL, locking on PGlite.
    const [written, refused] = await Promise.allSettled([
      wp.writeEvent(open.pending),
      wp.writeEvent(closed.pending),
    ]);
    expect(refused).toMatchObject({ status: "rejected", reason: { message: "the asset is closed" } });
    expect(await kept(closed.commitment)).toBe(0);
    expect(await kept(open.commitment)).toBe(1);
    // The answer discloses the values it carried, with no read.
    const [row] = (written as PromiseFulfilledResult<Awaited<ReturnType<WritePath["writeEvent"]>>>).value;
    expect(row.erasable?.event_attributes?.party_tel).toEqual({
      disclosed: { value: "+1 555 0100", salt: expect.any(String) },
    });
  });

  it("stores neither the records nor their values of a group whose transaction does not commit", async () => {
    // The connection is lost after the group's statements, before its commit, every time.
    const failing: Db = {
      ...db,
      kind: db.kind,
      query: db.query.bind(db),
      transaction: (fn) =>
        db.transaction(async (tx) => {
          await fn(tx);
          throw new Error("connection lost");
        }),
    };
    const wp = pathOver(failing);
    const a = await asset({ stage: "open" });
    // Changing its asset, the group takes the locking write on either engine.
    const changing = event(a, "+1 555 0101", { stage: "open", seen: "yes" });
    const alongside = event(a, "+1 555 0102", { stage: "open", seen: "again" });
    const settled = await Promise.allSettled([
      wp.writeEvent(changing.pending),
      wp.writeEvent(alongside.pending),
    ]);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected"]);
    expect(await events(a)).toBe(0);
    expect(await kept(changing.commitment)).toBe(0);
    expect(await kept(alongside.commitment)).toBe(0);
  });

  it("stores no value of an asset-free event its tenancy's quota refuses", async () => {
    const wp = pathOver(db);
    const free = (tel: string): { pending: PendingFreeEvent; commitment: string } => {
      const party = erasable(tel);
      return {
        pending: {
          id: randomUUID(),
          tenant_id: tenant,
          attributes: { party_tel: party.attribute },
          trails: ["t"],
          event_type: "",
          created_by: "test",
          created_at: Date.now(),
          erasables: [party.value],
          chargedTo: "tenancy",
        },
        commitment: party.value.commitment,
      };
    };
    const first = free("+1 555 0103");
    const second = free("+1 555 0104");
    // A quota of one: the group admits the first and refuses the second.
    const [admitted, refused] = await Promise.allSettled([
      wp.writeFreeEvent(first.pending),
      wp.writeFreeEvent(second.pending),
    ]);
    expect(admitted.status).toBe("fulfilled");
    expect(refused.status).toBe("rejected");
    expect(await kept(first.commitment)).toBe(1);
    expect(await kept(second.commitment)).toBe(0);
    // Read back as its record, the store joins its value; erased, the erasure.
    const read = await getFreeEvent(db, tenant, first.pending.id, { erasables: true });
    expect(read?.erasable?.attributes?.party_tel).toMatchObject({ disclosed: { value: "+1 555 0103" } });
    await eraseValues(db, tenant, [first.commitment], {
      by: "admin",
      basis: "a request",
      record: "events/x",
    });
    const search = await freeEventSearch(db, new Map(), { tenantId: tenant, skip: 0, top: 10 });
    expect(search.rows.find((r) => r.id === first.pending.id)?.erasable?.attributes?.party_tel).toMatchObject(
      {
        erased: { by: "admin", basis: "a request", record: "events/x" },
      },
    );
  });

  it("reads an erased record in its erased form through the store's record queries", async () => {
    const wp = pathOver(db);
    const a = await asset({ stage: "open" });
    const made = event(a, "+1 555 0105");
    const [row] = await wp.writeEvent(made.pending);
    const erasure = `assets/${a}/events/${randomUUID()}`;
    expect(
      await eraseValues(db, tenant, [made.commitment], { by: "admin", basis: "Art. 17", record: erasure }),
    ).toEqual([made.commitment]);
    const erased = { erased: { by: "admin", at: expect.any(String), basis: "Art. 17", record: erasure } };
    // One record, read as its record: the erasure joined. Read for anything else: nothing joined.
    const one = await getAssetEvent(db, a, row.id, { erasables: true });
    expect(one?.erasable?.event_attributes?.party_tel).toEqual(erased);
    expect((await getAssetEvent(db, a, row.id))?.erasable).toBeUndefined();
    // A page of them, one query for the page.
    const list = await assetEventList(db, new Map(), {
      access: { kind: "authorised" },
      assetId: a,
      filters: [],
      statuses: [],
      order: "newest",
      page: { cursor: 0, limit: 10 },
    });
    const page = (await list?.page()) ?? [];
    expect(page.map((e) => e.erasable?.event_attributes?.party_tel)).toEqual([erased]);
  });

  it("writes an erasure's records through the group commit: all or none, handed off and woken as any group", async () => {
    const wp = pathOver(db);
    wp.handoff.open();
    const a = await asset({ stage: "open" });
    const b = await asset({ stage: "closed" });
    woken.length = 0;
    // One record refused: nothing is written, not even what `alongside` did.
    const refusedOne = event(b, "+1 555 0106");
    const other = event(a, "+1 555 0107");
    await expect(
      wp.writeAlone([other.pending, refusedOne.pending], async (tx) => {
        await tx.query('update assets set attributes = \'{"stage": "touched"}\'::jsonb where id = $1', [a]);
      }),
    ).rejects.toThrow("the asset is closed");
    expect(await events(a)).toBe(0);
    expect(await kept(other.commitment)).toBe(0);
    expect(
      (await db.query<AssetRow>("select attributes from assets where id = $1", [a]))[0]?.attributes,
    ).toEqual({ stage: "open" });
    // Both kinds at once, committed together with what `alongside` does.
    const record = event(a, "+1 555 0108");
    const free: PendingFreeEvent = {
      id: randomUUID(),
      tenant_id: tenant,
      attributes: { x: "y" },
      trails: [],
      event_type: "",
      created_by: "test",
      created_at: Date.now(),
      chargedTo: "tenancy",
    };
    await db.query("update tenancies set quotas = '{}'::jsonb where id = $1", [tenant]);
    const done = await wp.writeAlone(
      [record.pending, free],
      async (_tx, rows: WrittenRecord[]) => rows.length,
    );
    expect(done.result).toBe(2);
    const [written, freeRow] = done.rows;
    expect(Array.isArray(written) && Array.isArray(freeRow) === false).toBe(true);
    expect((freeRow as { id: string }).id).toBe(free.id);
    const [stored] = written as Array<{ id: string }>;
    expect(wp.handoff.take(stored?.id as string)).toBeDefined();
    expect(woken).toContain(tenant);
    expect(await kept(record.commitment)).toBe(1);
  });
});
