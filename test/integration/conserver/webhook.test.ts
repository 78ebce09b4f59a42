import { readFileSync } from "node:fs";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChainConfig } from "../../../plugins/conserver/config/types.js";
import { MemoryDeadLetterStore } from "../../../plugins/conserver/dead-letters/delivery-store.js";
import type { DeliveryJob } from "../../../plugins/conserver/delivery/job.js";
import { createConserverMetrics } from "../../../plugins/conserver/delivery/metrics.js";
import { type DeliveryWorker, startDeliveryWorker } from "../../../plugins/conserver/delivery/worker.js";
import * as archivist from "../../../plugins/conserver/links/archivist.js";
import { MemoryQueue } from "../../../plugins/conserver/queue/index.js";
import type { ResolvedLink } from "../../../plugins/conserver/runtime/chain.js";
import {
  chainAcceptor,
  queueAcceptor,
  startWebhookIngress,
  type WebhookIngress,
} from "../../../plugins/conserver/runtime/webhook.js";
import { fixtureJson, fixturePath } from "../../helpers/fixtures.js";
import { FakeArchivist } from "../../unit/conserver/fake-archivist.js";
import { until } from "./redis-env.js";

const log = pino({ level: "silent" });
const vectors = fixtureJson<{ vectors: Record<string, { sha256_file_bytes: string }> }>(
  "vcon/hash-vectors.json",
).vectors;

describe("webhook ingress", () => {
  const fake = new FakeArchivist();
  let vcon: WebhookIngress;
  let broken: WebhookIngress;
  let worker: DeliveryWorker;

  beforeAll(async () => {
    const queue = new MemoryQueue<DeliveryJob>("webhook-delivery", {
      attempts: 2,
      backoff: { type: "fixed", delayMs: 5 },
    });
    worker = startDeliveryWorker({
      queue,
      deadLetters: new MemoryDeadLetterStore(),
      fetch: fake.fetch,
      log,
      metrics: createConserverMetrics(),
    });
    const backend = { url: "http://fake", client_id: "client-1", client_secret: "secret-1" };
    const links = new Map<string, ResolvedLink>([
      ["arch", { name: "arch", module: archivist, options: { vcon_operation: "received", backend } }],
      ["broken", { name: "broken", module: archivist, options: { backend } }],
    ]);
    const chain = (l: string): ChainConfig => ({
      name: l,
      links: [l],
      ingressLists: [],
      egressLists: [],
      enabled: true,
    });
    vcon = await startWebhookIngress({
      path: "/hooks/vcon",
      accept: chainAcceptor({ chain: chain("arch"), links, ctx: { log, deliveryQueue: queue } }),
      token: "tok",
      limitBytes: 64 * 1024,
      log,
    });
    broken = await startWebhookIngress({
      path: "/hooks/broken",
      accept: chainAcceptor({ chain: chain("broken"), links, ctx: { log, deliveryQueue: queue } }),
      log,
    });
  });
  afterAll(async () => {
    await worker.close();
    await vcon.close();
    await broken.close();
  });

  const post = (path: string, body: string | Uint8Array, token = "tok") =>
    fetch(path === "/hooks/vcon" ? vcon.url : broken.url, {
      method: "POST",
      body: typeof body === "string" ? body : new Blob([new Uint8Array(body)]),
      headers: { "content-type": "application/json", "x-conserver-api-token": token },
    });

  it("records each posted vCon with the hash of the bytes received (the Python vcon.hash)", async () => {
    const names = [
      "vcon-js-legacy-0.0.1-text-chat.vcon.json",
      "ietf-core03-ab_call_ext_rec_redacted.vcon.json",
    ];
    for (const name of names) {
      const res = await post("/hooks/vcon", readFileSync(fixturePath(`vcon/${name}`)));
      expect(res.status).toBe(200);
      expect(((await res.json()) as { result: string }).result).toMatch(/^[0-9a-f-]{36}$/);
    }
    await until(() => fake.events.length === 2, 5000, "two events");
    const payloads = fake.events.map((e) => e.event_attributes.payload);
    expect(payloads.sort()).toEqual(names.map((n) => vectors[n]?.sha256_file_bytes).sort());
    expect(fake.events[0]?.event_attributes.vcon_operation).toBe("vcon_received");
  });

  it.each([
    ["not JSON", "{", 400, "JSON_SYNTAX"],
    ["not a vCon", '{"a":1}', 400, "VCON_FORM_UNKNOWN"],
    ["no uuid", '{"parties":[]}', 400, "VCON_NO_UUID"],
    ["too large", `{"uuid":"x","parties":[],"pad":"${"a".repeat(70_000)}"}`, 413, "TOO_LARGE"],
  ])("answers %s with %i", async (_what, body, status, code) => {
    const res = await post("/hooks/vcon", body);
    expect(res.status).toBe(status);
    expect(((await res.json()) as { code: string }).code).toBe(code);
  });

  it("refuses a wrong token and reports a failing link as 500", async () => {
    const vcon = '{"uuid":"w-1","parties":[]}';
    expect((await post("/hooks/vcon", vcon, "nope")).status).toBe(401);
    const res = await post("/hooks/broken", vcon, "");
    expect(res.status).toBe(500);
    expect(((await res.json()) as { code: string }).code).toBe("LINK_OPTIONS");
  });

  it("answers 503 when the vCon could not be stored or queued, and queues nothing it did not store", async () => {
    const pushed: string[] = [];
    const redis = { rpush: async (_k: string, v: string) => pushed.push(v) };
    const failing = await startWebhookIngress({
      accept: queueAcceptor({ put: async () => Promise.reject(new Error("redis down")) }, redis, "in"),
      log,
    });
    const working = await startWebhookIngress({
      accept: queueAcceptor({ put: async () => undefined }, redis, "in"),
      log,
    });
    try {
      const vcon = '{"uuid":"q-1","parties":[]}';
      const down = await fetch(failing.url, { method: "POST", body: vcon });
      expect(down.status).toBe(503);
      expect(pushed).toEqual([]);
      const ok = await fetch(working.url, { method: "POST", body: vcon });
      expect(ok.status).toBe(200);
      expect(pushed).toEqual(["q-1"]);
    } finally {
      await failing.close();
      await working.close();
    }
  });
});
