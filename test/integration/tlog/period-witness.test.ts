import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyCommand } from "../../../src/cli/verify.js";
import { verifyCheckpoint } from "../../../src/verify/tlog/log-check.js";
import { closeLogPeriod } from "../../../src/workers/log-period.js";
import { loadSealKeys } from "../../../src/workers/seal-keys.js";
import { runCli } from "../../helpers/cli-output.js";
import { publishedKey } from "../../helpers/log-key.js";
import { until } from "../../helpers/poll.js";
import { freePort } from "../../helpers/ports.js";
import { evidence, postEvent, tenancyLog } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { prepareWitness, runWitness, stopWitness } from "../../helpers/witness-process.js";

/*
 * A log period's final checkpoint is witnessed where witnesses are configured: an `archivist
 * witness` process cosigns it (before the newer checkpoint the close makes at once), and the
 * chain of period roots verifies with the witness's key and quorum.
 */
const witness = prepareWitness("period.test/witness", await freePort());
let s: TestService;
let token: string;

beforeAll(async () => {
  s = await startTestService({
    ARCHIVIST_WITNESSES: `${witness.vkey} ${witness.url}`,
    ARCHIVIST_WITNESS_QUORUM: "1",
  });
  token = await s.token(s.a);
}, 90_000);
afterAll(async () => {
  await stopWitness(witness);
  await s?.stop();
});

describe("a log period's final checkpoint and witnesses", () => {
  it("is cosigned by the configured witness, and the chain verifies with its quorum", async () => {
    const log = await tenancyLog(s, token, "w");
    const tenant = log.tenant;
    const prefix = `${s.url}${log.prefix}`;
    await s.service.workers.flush();
    const logVkey = await publishedKey(() => fetch(`${prefix}/key`));
    await runWitness(witness, logVkey);
    for (let i = 0; i < 5; i++)
      await postEvent(s, token, log.asset.identity, evidence({ arc_display_type: "w", i: String(i) }));
    const trust = { logVkey, witnessVkeys: [witness.vkey], quorum: 1 };
    await until(async () => {
      await s.service.workers.flush();
      const note = await (await fetch(`${prefix}/checkpoint`)).text();
      return Number(note.split("\n")[1]) >= 6 && verifyCheckpoint(note, trust).ok ? note : undefined;
    }, 60_000);
    const ctx = s.service.ctx;
    const keys = await loadSealKeys(ctx);
    const closed = await ctx.db.transaction((tx) => closeLogPeriod(tx, tenant, keys, ctx.logGuard));
    expect(closed?.end).toBeGreaterThanOrEqual(6);
    // The final checkpoint is cosigned first, then the head that holds the link.
    const chain = await until(async () => {
      await s.service.workers.flush();
      const c = (await (await fetch(`${prefix}/periods`)).json()) as {
        head: string;
        periods: Array<{ checkpoint?: string }>;
      };
      const final = c.periods[0]?.checkpoint;
      return final && verifyCheckpoint(final, trust).ok && verifyCheckpoint(c.head, trust).ok ? c : undefined;
    }, 60_000);
    expect(chain.periods).toHaveLength(2);
    const dir = mkdtempSync(join(tmpdir(), "period-witness-cli-"));
    writeFileSync(join(dir, "log.vkey"), logVkey);
    writeFileSync(
      join(dir, "keys.cbor"),
      new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()),
    );
    const v = await runCli(
      (a) => verifyCommand.run(a),
      [
        "--log",
        tenant,
        "--url",
        s.url,
        "--log-key",
        join(dir, "log.vkey"),
        "--witness",
        witness.vkey,
        "--keys",
        join(dir, "keys.cbor"),
      ],
    );
    expect(v.out).toMatch(/its 2 periods chain/);
    expect(v.code, v.out).toBe(0);
  }, 180_000);
});
