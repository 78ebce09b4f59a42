import { randomUUID } from "node:crypto";
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
import { vconAssetEvents } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";

const quiet = pino({ level: "silent" });

/**
 * The delivery's look-ups against the real service: it reads a repeated query key as any of its
 * values, so after the probe a busy worker asks for many vCons' assets and events per request,
 * and what it records is the same as with one look-up per vCon.
 */
describe("conserver look-ups in groups against the real service", () => {
  let s: TestService;
  let token: string;
  const workers: DeliveryWorker[] = [];

  beforeAll(async () => {
    s = await startTestService();
    token = await s.token(s.a);
  }, 60_000);

  afterAll(async () => {
    for (const w of workers) await w.close({ force: true }).catch(() => undefined);
    s?.service.server?.closeAllConnections();
    await s?.stop();
  });

  function worker() {
    const queue = new MemoryQueue<DeliveryJob>(`grouped-${workers.length}`, {
      attempts: 3,
      backoff: { type: "fixed", delayMs: 10 },
    });
    const metrics = createConserverMetrics();
    workers.push(
      startDeliveryWorker({
        queue,
        deadLetters: new MemoryDeadLetterStore(),
        concurrency: 16,
        log: quiet,
        metrics,
      }),
    );
    return { queue, metrics };
  }

  function job(uuid: string, op: string): DeliveryJob {
    const doc = parseVcon(
      JSON.stringify({ vcon: "0.0.2", uuid, parties: [], created_at: "2024-01-01T00:00:00Z" }),
    );
    const event = buildVconEvent(doc, op, { link: "archivist", linkName: "grouped", hashMode: "raw" });
    const attrs = event.event_attributes;
    const backend = { url: s.url, clientId: s.a.clientId, clientSecret: s.a.clientSecret };
    return {
      idempotencyKey: `${uuid}:${attrs.vcon_operation}:${attrs.payload}`,
      vconUuid: uuid,
      event,
      backend,
    };
  }

  async function count(metrics: ConserverMetrics, what: "requests" | "jobs", label: string): Promise<number> {
    const values = (await metrics[what].get()).values;
    return values
      .filter((v) => (v.labels as Record<string, unknown>)[what === "jobs" ? "outcome" : "route"] === label)
      .reduce((a, v) => a + v.value, 0);
  }

  async function deliverAll(w: ReturnType<typeof worker>, jobs: DeliveryJob[], outcome: string) {
    const before = await count(w.metrics, "jobs", outcome);
    for (const j of jobs) await w.queue.add("deliver", j, { jobId: j.idempotencyKey });
    const end = Date.now() + 30_000;
    while ((await count(w.metrics, "jobs", outcome)) - before < jobs.length) {
      if (Date.now() > end) throw new Error(`not every job ended ${outcome} in time`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Each vCon's assets, and its conserver events by operation. */
  async function recorded(uuid: string) {
    const { assets, events } = await vconAssetEvents(s, token, uuid);
    return { assets, ops: events.map((e) => String(e.vcon_operation)).sort() };
  }

  it("asks for many vCons per request once probed, and records each event once on one asset", async () => {
    const uuids = Array.from({ length: 40 }, () => randomUUID());
    const first = worker();
    // Two vCons let the probe run; then the rest arrive at once.
    await deliverAll(
      first,
      uuids.slice(0, 2).map((u) => job(u, "created")),
      "delivered",
    );
    const before = await count(first.metrics, "requests", "assets.list");
    await deliverAll(
      first,
      uuids.slice(2).map((u) => job(u, "created")),
      "delivered",
    );
    const lookups = (await count(first.metrics, "requests", "assets.list")) - before;
    expect(lookups).toBeGreaterThan(0);
    expect(lookups).toBeLessThan(38);

    // A restarted worker (nothing cached): a later operation on every vCon finds each asset and
    // looks for each event in groups; the same jobs again find every event and record none.
    const second = worker();
    await deliverAll(
      second,
      uuids.map((u) => job(u, "transcribed")),
      "delivered",
    );
    await deliverAll(
      second,
      uuids.map((u) => job(u, "transcribed")),
      "duplicate",
    );
    expect(await count(second.metrics, "requests", "events.list")).toBeLessThan(2 * uuids.length);
    for (const u of uuids)
      expect(await recorded(u)).toEqual({ assets: 1, ops: ["vcon_created", "vcon_transcribed"] });
  }, 60_000);
});
