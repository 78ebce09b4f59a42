import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryDeadLetterStore } from "../../../plugins/conserver/dead-letters/delivery-store.js";
import type { DeliveryJob } from "../../../plugins/conserver/delivery/job.js";
import {
  type ConserverMetrics,
  createConserverMetrics,
} from "../../../plugins/conserver/delivery/metrics.js";
import { type DeliveryWorker, startDeliveryWorker } from "../../../plugins/conserver/delivery/worker.js";
import { MemoryQueue } from "../../../plugins/conserver/queue/index.js";
import { buildVconEvent } from "../../../plugins/conserver/template.js";
import { parseVcon } from "../../../plugins/conserver/vcon.js";
import {
  type MisbehavingProxy,
  type Misbehaviour,
  misbehavingProxy,
} from "../../helpers/misbehaving-proxy.js";
import { startTestService, type TestService } from "../../helpers/service.js";

const quiet = pino({ level: "silent" });
const MiB = 1024 * 1024;

/**
 * Issue 55: a backend (or a proxy before it) that forwards a write and answers with 300 MB lost
 * every vCon of the run and took the worker's memory to 6.4 GB. Here a proxy in front of the real
 * service answers the worker's writes in turn huge (streamed, never held), slow, as HTML, with a
 * success that wrote nothing and with a redirect, then behaves: every vCon ends on exactly one
 * asset with one event per operation, nothing is dead-lettered, nothing goes where the redirect
 * pointed, and the worker's memory stays bounded.
 */
describe("conserver delivery behind a misbehaving backend", () => {
  let s: TestService;
  let token: string;
  let proxy: MisbehavingProxy;
  let trap: Server;
  let trapped = 0;
  let mode: Misbehaviour | undefined;
  let worker: DeliveryWorker | undefined;

  beforeAll(async () => {
    s = await startTestService();
    token = await s.token(s.a);
    trap = createServer((req, res) => {
      trapped += 1;
      req.resume();
      res.end("{}");
    });
    await new Promise<void>((r) => trap.listen(0, "127.0.0.1", r));
    proxy = await misbehavingProxy({
      target: s.url,
      // Writes misbehave; look-ups (GETs, the OData search, the token) go through.
      choose: (req) =>
        req.method === "POST" && !req.url?.includes("/search") && !req.url?.includes("/token")
          ? mode
          : undefined,
      hugeBytes: 400 * MiB,
      slowMs: 6000,
      redirectTo: `http://127.0.0.1:${(trap.address() as AddressInfo).port}`,
    });
  }, 60_000);

  afterAll(async () => {
    await worker?.close({ force: true }).catch(() => undefined);
    await proxy?.close();
    trap?.closeAllConnections();
    await new Promise((r) => trap?.close(r));
    s?.service.server?.closeAllConnections();
    await s?.stop();
  });

  function job(uuid: string, op: string, alsoAssetFree: boolean): DeliveryJob {
    const doc = parseVcon(
      JSON.stringify({ vcon: "0.0.2", uuid, parties: [], created_at: "2024-01-01T00:00:00Z" }),
    );
    const event = buildVconEvent(doc, op, { link: "archivist", linkName: "misbehaving", hashMode: "raw" });
    const attrs = event.event_attributes;
    return {
      idempotencyKey: `${uuid}:${attrs.vcon_operation}:${attrs.payload}`,
      vconUuid: uuid,
      event,
      backend: { url: proxy.url, clientId: s.a.clientId, clientSecret: s.a.clientSecret },
      alsoAssetFree,
    };
  }

  async function ended(metrics: ConserverMetrics): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const v of (await metrics.jobs.get()).values) {
      const outcome = String((v.labels as Record<string, unknown>).outcome);
      out[outcome] = (out[outcome] ?? 0) + v.value;
    }
    return out;
  }

  async function until(what: string, ok: () => Promise<boolean> | boolean, ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (!(await ok())) {
      if (Date.now() > end) throw new Error(`${what}: not in ${ms} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async function listed<T>(path: string, init?: Parameters<TestService["api"]>[1]): Promise<T> {
    const res = await s.api(path, { token, ...init });
    expect(res.status, path).toBe(200);
    return (await res.json()) as T;
  }

  /** Each vCon's assets, its conserver events' operations, and its asset-free events' operations. */
  async function recorded(uuid: string) {
    const q = new URLSearchParams({ "attributes.subject": `vcon://${uuid}` });
    const { assets } = await listed<{ assets: Array<{ identity: string }> }>(`/archivist/v2/assets?${q}`);
    const ops: string[] = [];
    for (const a of assets) {
      const { events } = await listed<{ events: Array<{ event_attributes: Record<string, unknown> }> }>(
        `/archivist/v2/${a.identity}/events`,
      );
      for (const e of events)
        if (e.event_attributes.vcon_operation) ops.push(String(e.event_attributes.vcon_operation));
    }
    const { events: free } = await listed<{ events: Array<{ event_type: string }> }>(
      "/archivist/v1/events/search",
      { method: "POST", json: { filter: `trails/any(t: t eq 'vcon://${uuid}')`, top: 50 } },
    );
    return { assets: assets.length, ops: ops.sort(), free: free.map((e) => e.event_type).sort() };
  }

  it("loses no vCon, records none twice, follows no redirect and keeps its memory bounded", async () => {
    const queue = new MemoryQueue<DeliveryJob>("misbehaving", {
      attempts: 1000,
      backoff: { type: "fixed", delayMs: 20 },
    });
    const metrics = createConserverMetrics();
    const deadLetters = new MemoryDeadLetterStore();
    worker = startDeliveryWorker({
      queue,
      deadLetters,
      concurrency: 8,
      retry: { requestTimeoutMs: 1500, baseDelayMs: 5, maxDelayMs: 50 },
      log: quiet,
      metrics,
    });
    const uuids = Array.from({ length: 8 }, () => randomUUID());
    const phases: Array<[Misbehaviour | undefined, string]> = [
      ["huge", "created"],
      ["slow", "transcribed"],
      ["html", "summarized"],
      ["fake", "redacted"],
      ["redirect", "signed"],
      [undefined, "archived"],
    ];
    const rss = process.memoryUsage.rss;
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss());
    }, 10);
    try {
      for (const [m, op] of phases) {
        mode = m;
        for (const [i, u] of uuids.entries()) {
          const j = job(u, op, i % 2 === 0);
          await queue.add("deliver", j, { jobId: j.idempotencyKey });
        }
        // Each misbehaviour answers a few of the writes (first attempts and retries alike).
        if (m) await until(`${m} answers`, () => proxy.counts[m] >= 3, 60_000);
      }
      // Behaving again: every job ends, none of them in the dead letters.
      const total = uuids.length * phases.length;
      await until(
        "every job delivered",
        async () => {
          const e = await ended(metrics);
          return (e.delivered ?? 0) + (e.duplicate ?? 0) + (e.dead_letter ?? 0) >= total;
        },
        90_000,
      );
    } finally {
      clearInterval(sampler);
    }
    expect(await deadLetters.list()).toEqual([]);
    const ops = phases.map(([, op]) => `vcon_${op}`).sort();
    for (const [i, u] of uuids.entries())
      expect(await recorded(u), u).toEqual({ assets: 1, ops, free: i % 2 === 0 ? ops : [] });
    expect(trapped).toBe(0);
    // Each huge answer would have been 400 MiB: the worker read a few of them, and let go.
    expect(proxy.counts.huge).toBeGreaterThanOrEqual(3);
    expect(peak - before).toBeLessThan(300 * MiB);
  }, 180_000);
});
