import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { keepAliveSender, type RetryPolicy, sleep, Transport } from "../../../src/client/index.js";
import { localServerForSuite } from "../../helpers/local-server.js";

// A delivery job's signal is shared by every request of its batch: the listeners on it are counted.
describe("abort listeners on a shared signal", () => {
  const local = localServerForSuite((req, res) => {
    if (req.url === "/slow") return; // answers only when the client gives up
    res.writeHead(req.url === "/retry" ? 503 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: req.url }));
  });

  const listeners = (s: AbortSignal) => getEventListeners(s, "abort").length;
  const policy: RetryPolicy = {
    inlineRetries: 1,
    baseDelayMs: 1,
    maxDelayMs: 2,
    requestTimeoutMs: 5000,
    maxRateLimitWaits: 0,
    maxRateLimitWaitMs: 0,
  };

  it("a thousand requests, sixteen at a time on one signal, leave no listener behind", async () => {
    const job = new AbortController();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    const send = keepAliveSender();
    // Sixteen clients on the job's signal, as a batch's deliveries are.
    const clients = Array.from(
      { length: 16 },
      () => new Transport({ url: local.url, send, signal: job.signal, policy }),
    );
    let most = 0;
    let done = 0;
    await Promise.all(
      clients.map(async (t, i) => {
        for (let n = i; n < 1000; n += 16) {
          const reply = await t.json<{ ok: string }>("GET", `/n/${n}`, { route: "n" });
          expect(reply.body.ok).toBe(`/n/${n}`);
          most = Math.max(most, listeners(job.signal));
          done++;
        }
      }),
    );
    await new Promise((r) => setImmediate(r));
    process.off("warning", onWarning);
    expect(done).toBe(1000);
    expect(most).toBe(1);
    expect(listeners(job.signal)).toBe(0);
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });

  it("retries and their waits leave no listener behind either", async () => {
    const job = new AbortController();
    const t = new Transport({ url: local.url, signal: job.signal, policy });
    for (let n = 0; n < 20; n++)
      await expect(t.json("GET", "/retry", { route: "retry" })).rejects.toThrow(/503/);
    await Promise.all(Array.from({ length: 50 }, () => sleep(1, job.signal)));
    expect(listeners(job.signal)).toBe(0);
  });

  it("aborting the shared signal still ends every request under way", async () => {
    const job = new AbortController();
    const t = new Transport({ url: local.url, signal: job.signal, policy });
    const pending = Array.from({ length: 12 }, () =>
      t.json("GET", "/slow", { route: "slow" }).then(
        () => "answered",
        (err: unknown) => (err as Error).message,
      ),
    );
    await sleep(50);
    expect(listeners(job.signal)).toBe(1);
    job.abort(new Error("job cancelled"));
    expect(new Set(await Promise.all(pending))).toEqual(new Set(["job cancelled"]));
    expect(listeners(job.signal)).toBe(0);
    await expect(sleep(1000, job.signal)).rejects.toThrow("job cancelled");
  });
});
