import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSeal } from "../../../src/store/ledger/seals.js";
import { latestCheckpoint } from "../../../src/store/ledger/tlog-checkpoints.js";
import type { StandbyLog } from "../../../src/store/replication/standby.js";
import { closeLogPeriod } from "../../../src/workers/log-period.js";
import { loadSealKeys } from "../../../src/workers/seal-keys.js";
import { sealLog } from "../../../src/workers/seal-log.js";
import { until } from "../../helpers/poll.js";
import { evidence, postEvent, tenancyLog } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/*
 * Issue 60: with a standby configured, a seal, its checkpoint and a period's close cover only the
 * log as the standby holds it (`signingLimit`, read from the standby). Here the limit is a state
 * the log had (as a standby behind the primary would hold it), given to the signing code directly,
 * so it runs on both engines; test/integration/foundation/failover.test.ts runs it with a real one.
 */
let s: TestService;
let token: string;
let tenant: string;
let asset: string;
/** The log as a lagging standby holds it: set by the first test. */
let lagging: StandbyLog | undefined;

beforeAll(async () => {
  // The sealer's timer a minute apart: this test signs, the committer commits.
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "60000" });
  token = await s.token(s.a);
  const log = await tenancyLog(s, token, "limited");
  tenant = log.tenant;
  asset = log.asset.identity;
});
afterAll(async () => s?.stop());

describe("signing up to the standby's log", () => {
  const logRow = async (): Promise<StandbyLog> => {
    const rows = await s.service.ctx.db.query<{ mmr_size: string | number; last_idtimestamp: string }>(
      "select mmr_size, last_idtimestamp from logs where tenant_id = $1",
      [tenant],
    );
    return { mmr_size: Number(rows[0]?.mmr_size ?? 0), last_idtimestamp: rows[0]?.last_idtimestamp ?? "" };
  };
  const committedTo = (leaves: number) =>
    until(async () => {
      const at = await logRow();
      // MMR size of `leaves` leaves: 2n - popcount(n).
      return at.mmr_size === 2 * leaves - leaves.toString(2).replaceAll("0", "").length ? at : undefined;
    });
  const post = async (n: number) =>
    expect(
      (await postEvent(s, token, asset, evidence({ arc_display_type: "limited", n: String(n) }))).status,
    ).toBe(200);

  it("seals and checkpoints the standby's size, not the primary's", async () => {
    await post(1);
    // The asset's creation event and event 1: what the standby holds.
    const standby = await committedTo(2);
    await post(2);
    await post(3);
    await committedTo(4);
    const ctx = s.service.ctx;
    const keys = await loadSealKeys(ctx);
    const sealed = await ctx.logGuard.signing(tenant, () =>
      ctx.db.transaction((tx) => sealLog(tx, tenant, keys.seal, keys.checkpoint, ctx.logGuard, standby)),
    );
    expect(sealed).toBe(standby.mmr_size);
    expect((await getSeal(ctx.db, tenant))?.mmr_size).toBe(3);
    const cp = await latestCheckpoint(ctx.db, tenant);
    expect(cp?.size).toBe(2);
    // The checkpoint's root is the tree of the first two entries, as the consistency route computes it.
    const res = await s.api(`/archivist/v1/merklelogs/${tenant}/consistency?profile=rfc9162&from=2&to=4`);
    const proof = (await res.json()) as { root_from: string };
    expect(Buffer.from(cp?.root ?? []).toString("hex")).toBe(proof.root_from);
    lagging = standby;
  });

  it("closes a period only when the standby holds the whole log, and leaves its link entry to a later seal", async () => {
    const ctx = s.service.ctx;
    const keys = await loadSealKeys(ctx);
    // The standby still holds the 2 entries sealed above.
    const partial = lagging as StandbyLog;
    await expect(
      ctx.logGuard.signing(tenant, () =>
        ctx.db.transaction((tx) => closeLogPeriod(tx, tenant, keys, ctx.logGuard, partial)),
      ),
    ).rejects.toMatchObject({ code: "PERIOD_NOT_CLOSABLE" });
    const whole = await logRow();
    const closed = await ctx.logGuard.signing(tenant, () =>
      ctx.db.transaction((tx) => closeLogPeriod(tx, tenant, keys, ctx.logGuard, whole)),
    );
    expect(closed?.end).toBe(4);
    // The final checkpoint is signed at 4 entries; the link entry (the fifth) is not yet.
    expect((await latestCheckpoint(ctx.db, tenant))?.size).toBe(4);
    expect((await getSeal(ctx.db, tenant))?.mmr_size).toBe(whole.mmr_size);
    expect((await logRow()).mmr_size).toBeGreaterThan(whole.mmr_size);
  });
});
