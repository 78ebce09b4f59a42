import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logSize } from "../../../src/store/ledger/ledger.js";
import { getSeal } from "../../../src/store/ledger/seals.js";
import { closeLogPeriod } from "../../../src/workers/log-period.js";
import { loadSealKeys } from "../../../src/workers/seal-keys.js";
import { sealLog } from "../../../src/workers/seal-log.js";
import { until } from "../../helpers/poll.js";
import { evidence, postEvent, tenancyLog } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";

// The signed state is kept with the keys before the signing transaction commits (issue 51). When
// that transaction does not commit, the database is behind what was written there, as after a
// restore; but nothing was published, so the log must not be held: signing goes on from the
// database's newest seal. A restore of an older backup is still held (here, and
// restore-refusal.test.ts).
let s: TestService;
let token: string;

beforeAll(async () => {
  // The test seals and closes itself; the timers stay out of its way.
  s = await startTestService({
    ARCHIVIST_SEAL_INTERVAL_MS: "600000",
    ARCHIVIST_ANCHOR_INTERVAL_MS: "600000",
  });
  token = await s.token(s.a);
});
afterAll(() => s?.stop());

class Abort extends Error {}

async function logOf(displayType: string, as = token) {
  const ctx = s.service.ctx;
  const keys = await loadSealKeys(ctx);
  const { asset, tenant } = await tenancyLog(s, as, displayType);
  // As the sealer runs it: through the guard's `signing`, which settles what the transaction signed.
  const seal = () =>
    ctx.logGuard.signing(tenant, () =>
      ctx.db.transaction((tx) => sealLog(tx, tenant, keys.seal, keys.checkpoint, ctx.logGuard)),
    );
  // Committed to the log by the committer, not sealed: the sealer's timer is far off.
  const committed = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await postEvent(s, as, asset.identity, evidence({ i: String(i) }));
      expect(res.status).toBe(200);
      const { identity } = (await res.json()) as { identity: string };
      await until(async () => {
        const e = (await (await s.api(`/archivist/v2/${identity}`, { token: as })).json()) as {
          confirmation_status: string;
        };
        return e.confirmation_status === "COMMITTED" ? e : undefined;
      }, 30_000);
    }
  };
  return { ctx, keys, asset: asset.identity, tenant, seal, committed };
}

describe("a signing transaction that does not commit", () => {
  it("is not taken for a restore: the next seal, and a period's close after an aborted one, go on", async () => {
    const { ctx, keys, asset, tenant, seal, committed } = await logOf("signing");
    await committed(3);
    await seal();
    const before = await getSeal(ctx.db, tenant);

    // One seal signed, written to the key directory, then the transaction fails: the guard takes
    // the signed state back at once.
    await committed(2);
    await expect(
      ctx.logGuard.signing(tenant, () =>
        ctx.db.transaction(async (tx) => {
          expect(await sealLog(tx, tenant, keys.seal, keys.checkpoint, ctx.logGuard)).toBeGreaterThan(
            before?.mmr_size ?? 0,
          );
          throw new Abort("after signing, before COMMIT");
        }),
      ),
    ).rejects.toBeInstanceOf(Abort);
    const back = await ctx.logGuard.states.read(tenant);
    expect(back?.mmr_size).toBe(before?.mmr_size);
    expect(back?.pending).toBeUndefined();
    expect(await seal()).toBeGreaterThan(before?.mmr_size ?? 0);
    expect(ctx.logGuard.isHeld(tenant)).toBe(false);

    // The same transaction outside `signing`, as when the process dies before COMMIT: the state is
    // left pending, ahead of the database, which holds exactly the state before it.
    const sealed = await getSeal(ctx.db, tenant);
    await committed(1);
    await expect(
      ctx.db.transaction(async (tx) => {
        await sealLog(tx, tenant, keys.seal, keys.checkpoint, ctx.logGuard);
        throw new Abort("the process died here");
      }),
    ).rejects.toBeInstanceOf(Abort);
    const left = await ctx.logGuard.states.read(tenant);
    expect(left?.pending).toBe(true);
    expect(left?.before?.mmr_size).toBe(sealed?.mmr_size);
    expect(await seal()).toBeGreaterThan(sealed?.mmr_size ?? 0);
    expect(ctx.logGuard.isHeld(tenant)).toBe(false);

    // A period's close signs twice in its one transaction; it fails after both.
    await committed(2);
    await expect(
      ctx.logGuard.signing(tenant, () =>
        ctx.db.transaction(async (tx) => {
          expect(await closeLogPeriod(tx, tenant, keys, ctx.logGuard)).toBeDefined();
          throw new Abort("after the close's two seals, before COMMIT");
        }),
      ),
    ).rejects.toBeInstanceOf(Abort);
    const closed = await ctx.logGuard.signing(tenant, () =>
      ctx.db.transaction((tx) => closeLogPeriod(tx, tenant, keys, ctx.logGuard)),
    );
    expect(closed?.period).toBe(0);
    expect(ctx.logGuard.isHeld(tenant)).toBe(false);
    expect((await s.api("/readyz")).status).toBe(200);

    // The records of every step are sealed and their receipts served.
    await committed(1);
    expect(await seal()).toBeGreaterThan(closed?.end ?? 0);
    const events = (await (await s.api(`/archivist/v2/${asset}/events?page_size=50`, { token })).json()) as {
      events: Array<{ identity: string; confirmation_status: string }>;
    };
    expect(events.events).toHaveLength(10);
    for (const e of events.events) {
      expect(["CONFIRMED", "UNEQUIVOCAL"], e.identity).toContain(e.confirmation_status);
      expect((await s.api(`/archivist/v1/receipts/${e.identity}`, { token })).status, e.identity).toBe(200);
    }
  });

  it("a log's first seal left pending by two stopped processes in a row is sealed, not taken for deleted seals", async () => {
    // The other tenancy's log: never sealed yet.
    const { ctx, keys, tenant, seal, committed } = await logOf("first-seal", await s.token(s.b));
    await committed(1);
    const size = await logSize(ctx.db, tenant);
    // The first seal signed and the process stopped before COMMIT, twice: the second process read
    // the first's pending state as the state before its own.
    for (let i = 0; i < 2; i++)
      await expect(
        ctx.db.transaction(async (tx) => {
          expect(await sealLog(tx, tenant, keys.seal, keys.checkpoint, ctx.logGuard)).toBe(size);
          throw new Abort("the process died here");
        }),
      ).rejects.toBeInstanceOf(Abort);
    const left = await ctx.logGuard.states.read(tenant);
    expect(left?.pending).toBe(true);
    expect(left?.before).toBeUndefined();
    expect(await getSeal(ctx.db, tenant)).toBeUndefined();
    expect(await seal()).toBe(size);
    expect(ctx.logGuard.isHeld(tenant)).toBe(false);
    expect((await ctx.logGuard.states.read(tenant))?.pending).toBeUndefined();
  });

  it("a database behind a pending state that does not hold the state before it is held (a committed one: restore-refusal.test.ts)", async () => {
    const { ctx, tenant, seal, committed } = await logOf("held");
    await committed(1);
    const state = await ctx.logGuard.states.read(tenant);
    expect(state?.pending).toBeUndefined();
    // What a restore looks like to the guard: the key directory signed past the database, and the
    // state before the pending one is not the database's newest seal.
    const far = { ...(state as NonNullable<typeof state>), mmr_size: 1_000_000 };
    await ctx.logGuard.states.write({ ...far, pending: true, before: { ...far, mmr_size: 999_999 } });
    expect(await seal()).toBeUndefined();
    expect(ctx.logGuard.heldLogs().find((h) => h.tenant_id === tenant)?.kind).toBe("behind");
  });
});
