import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { verifyCommand } from "../../../src/cli/verify.js";
import { childDeployments } from "../../helpers/child-deployments.js";
import { runCli } from "../../helpers/cli-output.js";
import { until } from "../../helpers/poll.js";

/*
 * A SIGKILL in the middle of a log period's close (docs/scaling.md, "Log periods"): the close is
 * one transaction, so after a restart the log is as before it (no link entry without its period,
 * no period without its link), every accepted record is committed once, the period closes again,
 * and the log with its chain of period roots verifies.
 */
const STALL = fileURLToPath(new URL("../../helpers/stall-statement.ts", import.meta.url));
const d = childDeployments("period-crash");
const dir = d.dir;

describe("crash safety of log periods", () => {
  it("a SIGKILL during a period close loses nothing; after restart the period closes and everything verifies", async () => {
    const env = await d.env({ ARCHIVIST_LOG_PERIOD_ENTRIES: "30" });
    const mark = join(dir, "stalled");
    // The close's last statement but one: after the final seal and the link entry, in its transaction.
    const first = await d.start(
      "serve",
      { ...env, ARCHIVIST_TEST_STALL_SQL: "insert into log_periods", ARCHIVIST_TEST_STALL_MARK: mark },
      [STALL],
    );
    const asset = await d.asset(first.url, "period-crash");
    const { tenant } = asset;
    const accepted: string[] = [];
    const post = async (i: number) => {
      try {
        const r = await asset.record({ arc_display_type: "n", i: String(i) });
        if (r.status === 200) accepted.push(((await r.json()) as { identity: string }).identity);
      } catch {
        // The process died under this request: never answered, so never accepted.
      }
    };
    const load: Promise<void>[] = [];
    for (let i = 0; i < 120 && !existsSync(mark); i++) {
      load.push(post(i));
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 50));
    }
    await until(async () => (existsSync(mark) ? true : undefined), 60_000);
    await first.kill("SIGKILL");
    await Promise.all(load);
    expect(accepted.length).toBeGreaterThanOrEqual(30);

    const second = await d.start("serve", env);
    const t2 = await d.token(second.url);
    const auth = { authorization: `Bearer ${t2}` };
    for (const id of accepted)
      await until(async () => {
        const r = (await (await fetch(`${second.url}/archivist/v2/${id}`, { headers: auth })).json()) as {
          confirmation_status: string;
        };
        return ["CONFIRMED", "UNEQUIVOCAL"].includes(r.confirmation_status) ? r : undefined;
      }, 60_000);
    // The interrupted close runs again: the chain has a closed period whose link the head holds.
    const chain = await until(async () => {
      const r = await fetch(`${second.url}/archivist/v1/merklelogs/${tenant}/tlog/periods`);
      const c = (await r.json()) as { head: string; periods: Array<{ start: number; end?: number }> };
      const size = Number(c.head.split("\n")[1]);
      return c.periods.length >= 2 && size > (c.periods.at(-2)?.end ?? 0) ? c : undefined;
    }, 60_000);
    // Every entry is one record or one link: nothing duplicated, no link left over from the kill.
    const events = await until(async () => {
      const r = (await (
        await fetch(`${second.url}/archivist/v2/${asset.identity}/events?page_size=500`, { headers: auth })
      ).json()) as { events: Array<{ identity: string; merklelog_entry: { commit: { index: string } } }> };
      return r.events;
    });
    const ids = new Set(events.map((e) => e.identity));
    for (const id of accepted) expect(ids.has(id), id).toBe(true);
    const indices = events.map((e) => Number(e.merklelog_entry.commit.index));
    expect(new Set(indices).size).toBe(indices.length);
    const seal = await until(async () => {
      const c = (await (
        await fetch(`${second.url}/archivist/v1/merklelogs/${tenant}/tlog/periods`)
      ).json()) as { head: string; periods: unknown[] };
      const size = Number(c.head.split("\n")[1]);
      return size === events.length + c.periods.length - 1 ? c : undefined;
    }, 30_000);
    expect(seal.periods.length).toBeGreaterThanOrEqual(chain.periods.length);
    // Keys fetched from the service itself: self-consistent (2); every seal and the chain hold.
    const v = await runCli((a) => verifyCommand.run(a), ["--log", tenant, "--url", second.url]);
    expect(v, v.out).toMatchObject({ code: 2 });
    expect(v.out).toMatch(/periods chain/);
  }, 180_000);
});
