import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { createAsset, evidence, postEvent } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/*
 * Issue 71 (high): a database writer breaks one tenancy's newest seal. That log is refused, held
 * once and named by /readyz and /metrics; every other log is sealed on, its receipts served.
 */
const METRICS_TOKEN = "metrics-one-log-fault";
let s: TestService;
let tokenA: string;
let tokenB: string;

beforeAll(async () => {
  // Seals only when the test flushes: the refusals counted are the test's own.
  s = await startTestService({
    ARCHIVIST_SEAL_INTERVAL_MS: "600000",
    ARCHIVIST_METRICS_TOKEN: METRICS_TOKEN,
  });
  tokenA = await s.token(s.a);
  tokenB = await s.token(s.b);
}, 60_000);
afterAll(() => s?.stop());

/** Every event's receipt status, flushing the workers until all are 200 (at most 20 flushes). */
const receiptsOnceSealed = async (token: string, asset: string) => {
  let statuses: number[] = [];
  for (let i = 0; i < 20; i++) {
    statuses = await receiptStatus(token, asset);
    if (statuses.every((x) => x === 200)) break;
    await s.service.workers.flush();
  }
  return statuses;
};

/** How many seals of `tenant`'s log the database holds. */
const sealCount = async (tenant: string) => {
  const rows = await s.service.ctx.db.query<{ n: string }>(
    "select count(*)::text as n from seals where tenant_id = $1",
    [tenant],
  );
  return Number(rows[0]?.n);
};

const receiptStatus = async (token: string, asset: string) => {
  const events = (await (await s.api(`/archivist/v2/${asset}/events`, { token })).json()) as {
    events: Array<{ identity: string }>;
  };
  const statuses = [];
  for (const e of events.events)
    statuses.push((await s.api(`/archivist/v1/receipts/${e.identity}`, { token })).status);
  return statuses;
};

describe(`one log's refusal stops no other log (${testEngine()})`, () => {
  it("seals the other tenancies' logs, holds the broken one once, and names it", async () => {
    const a = await createAsset(s, tokenA, { arc_display_type: "fault" });
    const b = await createAsset(s, tokenB, { arc_display_type: "fault" });
    await s.service.workers.flush();
    const tenantA = a.tenant_identity.replace("tenant/", "");
    const tenantB = b.tenant_identity.replace("tenant/", "");
    // A writer flips a byte of A's newest seal's signature: it verifies with no key of the service.
    await s.service.ctx.db.query(
      `update seals set seal = overlay(seal placing decode(lpad(to_hex(get_byte(seal, length(seal) - 1) # 1), 2, '0'), 'hex') from length(seal) for 1)
       where tenant_id = $1 and mmr_size = (select max(mmr_size) from seals where tenant_id = $1)`,
      [tenantA],
    );
    // Both tenancies write; A's log is the first the sealer comes to or not, whichever: B is sealed.
    expect((await postEvent(s, tokenA, a.identity, evidence({ arc_display_type: "after" }))).status).toBe(
      200,
    );
    expect((await postEvent(s, tokenB, b.identity, evidence({ arc_display_type: "after" }))).status).toBe(
      200,
    );
    await s.service.workers.flush();
    expect(await receiptsOnceSealed(tokenB, b.identity)).toEqual([200, 200]);
    expect(s.service.ctx.logGuard.heldLogs().map((h) => [h.tenant_id, h.kind])).toEqual([
      [tenantA, "refused"],
    ]);
    const refused = s.service.ctx.logGuard.basis.refusals.get("seal");
    expect(refused).toBeGreaterThan(0);

    // Held, not tried again at every tick: more seals of B, no more refusals of A.
    for (let i = 0; i < 3; i++) {
      expect((await postEvent(s, tokenB, b.identity, evidence({ n: String(i) }))).status).toBe(200);
      await s.service.workers.flush();
    }
    expect(s.service.ctx.logGuard.basis.refusals.get("seal")).toBe(refused);
    expect(await receiptsOnceSealed(tokenB, b.identity)).toEqual([200, 200, 200, 200, 200]);

    const ready = await s.api("/readyz");
    expect(ready.status).toBe(503);
    const message = ((await ready.json()) as { message: string }).message;
    expect(message).toContain(`tenant/${tenantA}`);
    expect(message).not.toContain(`tenant/${tenantB}`);
    expect(message).not.toContain("tenant/<uuid>");
    const metrics = await (
      await s.api("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    expect(metrics).toContain(`archivist_log_held{log="tenant/${tenantA}",kind="refused"} 1`);
    expect(metrics).not.toContain(`archivist_log_held{log="tenant/${tenantB}"`);
  });

  it("does not seal anew from nothing a log whose every seal was deleted: the signed state knows its size", async () => {
    const b = await createAsset(s, tokenB, { arc_display_type: "seals deleted" });
    const tenantB = b.tenant_identity.replace("tenant/", "");
    // The signed state knows a size only once the log was sealed, and one flush may not seal it
    // (its commit may still be under way in the background when the sealer looks): deleting no
    // seal would leave the log to be sealed from nothing, rightly, and the case would fail.
    await until(async () => {
      await s.service.workers.flush();
      return (await sealCount(tenantB)) > 0 ? true : undefined;
    }, 30_000);
    await s.service.ctx.db.query("delete from seals where tenant_id = $1", [tenantB]);
    expect((await postEvent(s, tokenB, b.identity, evidence({ arc_display_type: "after" }))).status).toBe(
      200,
    );
    // The sealer comes to the log only once the event is committed past its sealed size: flushed
    // until it has held the log or, wrongly, sealed it anew (null, which fails below by name).
    const held = await until(async () => {
      await s.service.workers.flush();
      const h = s.service.ctx.logGuard.heldLogs().find((x) => x.tenant_id === tenantB);
      return h ?? ((await sealCount(tenantB)) > 0 ? null : undefined);
    }, 30_000);
    expect(held?.reason).toMatch(/holds no seal of the log, but this service sealed it at MMR size \d+/);
    expect(await sealCount(tenantB)).toBe(0);
    // Judged as the seal judges it: not released at the next check only to be held again.
    await s.service.ctx.logGuard.recheck(s.service.ctx.db);
    expect(s.service.ctx.logGuard.isHeld(tenantB)).toBe(true);
  });
});
