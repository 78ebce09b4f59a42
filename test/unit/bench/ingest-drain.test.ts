import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { drainRow } from "../../../bench/backlog.js";
import type { BenchOptions } from "../../../bench/options.js";
import { Results } from "../../../bench/results.js";
import type { ScenarioContext } from "../../../bench/scenario.js";
import { drain } from "../../../bench/scenarios/ingest-trust.js";
import type { Deployment } from "../../../bench/service.js";

/** A list endpoint whose STORED count answers each of `counts` in turn (then the last). */
function countingList(counts: number[]): Promise<Server> {
  let i = 0;
  const server = createServer((_req, res) => {
    const n = counts[Math.min(i++, counts.length - 1)] as number;
    res.writeHead(200, { "content-type": "application/json", "x-total-count": String(n) });
    res.end(JSON.stringify({ events: [] }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

describe("ingest's drain", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  const run = async (counts: number[]) => {
    server = await countingList(counts);
    const results = new Results();
    const ctx = {
      opts: { quick: true } as BenchOptions,
      results,
      log: () => undefined,
    } as unknown as ScenarioContext;
    const d = { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } as Deployment;
    await drain(ctx, d, "token", "assets/x", "after 64 in flight");
    return results.rows.filter((r) => r.metric === "after 64 in flight committer catch-up");
  };

  // Issue 59: a drain of a few events left no row, so a run could not tell a drain that ran from
  // one that never did.
  it("reports the phase when the backlog is too small to rate the committer", async () => {
    const rows = await run([3, 0]);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.value).toBeNull();
    expect(rows[0]?.note).toMatch(/^3 STORED after the phase: too few to rate the committer$/);
  });

  it("reports the committer's rate for a real catch-up", async () => {
    const rows = await run([500, 200, 0]);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.value).toBeGreaterThan(0);
    expect(rows[0]?.note).toBe("500 events");
  });

  it("says what was left, and when nothing was committed", () => {
    expect(drainRow({ initial: 500, remaining: 100, ms: 60_000 }).note).toBe(
      "500 events, 100 still STORED when the wait ended (60 s)",
    );
    expect(drainRow({ initial: 500, remaining: 500, ms: 5_000 })).toEqual({
      value: null,
      note: "500 STORED, none committed in 5000 ms: committer not running?",
    });
    expect(drainRow(undefined).value).toBeNull();
  });
});
