import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { drainBacklog, drainRow } from "../../../bench/backlog.js";

/** A list endpoint answering the n-th STORED count request with `answer(n)` (status and total). */
function list(answer: (n: number) => { status: number; total: number }): Promise<Server> {
  let n = 0;
  const server = createServer((_req, res) => {
    const a = answer(n++);
    res.writeHead(a.status, { "content-type": "application/json", "x-total-count": String(a.total) });
    res.end(JSON.stringify({ events: [] }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const origin = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

describe("the bench's drain of a STORED backlog", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  // Issue 59: the scaleout drains gave up after 5 s without a change of the count, while the
  // committer (batches of 2,000, on a loaded machine) was still working on its next step.
  it("waits through a step of the committer longer than five seconds", async () => {
    // 24 polls of 250 ms or more: over 6 s at 1,500 STORED, then the batch lands.
    server = await list((n) => ({ status: 200, total: n <= 24 ? 1500 : 0 }));
    const dr = await drainBacklog(origin(server), "token", "/archivist/v2/assets/x/events", 60_000);
    expect(dr).toMatchObject({ initial: 1500, remaining: 0 });
  }, 30_000);

  // Past the result limit the list answers 206 with an approximate total: a backlog, not unknown.
  it("counts a backlog past the result limit (206)", async () => {
    server = await list((n) => (n === 0 ? { status: 206, total: 12_345 } : { status: 200, total: 0 }));
    const dr = await drainBacklog(origin(server), "token", "/archivist/v2/assets/x/events", 60_000);
    expect(dr).toMatchObject({ initial: 12_345, floor: true, remaining: 0 });
    expect(drainRow(dr).note).toBe("over 12345 events (rate a floor)");
  });

  it("goes on waiting past a poll that fails", async () => {
    server = await list((n) => ({ status: n === 1 ? 503 : 200, total: n <= 2 ? 1500 : 0 }));
    const dr = await drainBacklog(origin(server), "token", "/archivist/v2/assets/x/events", 60_000);
    expect(dr).toMatchObject({ initial: 1500, remaining: 0 });
  });

  it("ends at the timeout and says what was left", async () => {
    server = await list(() => ({ status: 200, total: 700 }));
    const dr = await drainBacklog(origin(server), "token", "/archivist/v2/assets/x/events", 600);
    expect(dr).toMatchObject({ initial: 700, remaining: 700 });
    expect(drainRow(dr)).toEqual({
      value: null,
      note: expect.stringMatching(/^700 STORED, none committed in \d+ ms: committer not running\?$/),
    });
  });

  it("rates a catch-up, and says what was left and after how long", () => {
    expect(drainRow({ initial: 2000, remaining: 0, ms: 1000 })).toEqual({ value: 2000, note: "2000 events" });
    expect(drainRow({ initial: 2000, remaining: 500, ms: 300_000 }).note).toBe(
      "2000 events, 500 still STORED when the wait ended (300 s)",
    );
  });
});
