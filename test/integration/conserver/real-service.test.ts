import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conserverCli } from "../../../plugins/conserver/cli.js";
import {
  deadLetterKey,
  MemoryDeadLetterStore,
  RedisDeadLetterStore,
} from "../../../plugins/conserver/dead-letters/delivery-store.js";
import { type DeliveryJob, idempotencyKey } from "../../../plugins/conserver/delivery/job.js";
import { createConserverMetrics } from "../../../plugins/conserver/delivery/metrics.js";
import { type DeliveryWorker, startDeliveryWorker } from "../../../plugins/conserver/delivery/worker.js";
import { createQueue } from "../../../plugins/conserver/queue/factory.js";
import { type RunningConserver, runConserver } from "../../../plugins/conserver/runtime/run-conserver.js";
import { buildVconEvent } from "../../../plugins/conserver/template.js";
import { parseVcon, vconUuid } from "../../../plugins/conserver/vcon.js";
import { fixtureJson, fixturePath } from "../../helpers/fixtures.js";
import { vconAssetEvents } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { deleteKeys, REDIS_URL, redisUp, uniqueName, until } from "./redis-env.js";

const up = await redisUp();
type Vectors = { vectors: Record<string, { sha256_vcon_server_after_read_normalization: string }> };
const vectors = fixtureJson<Vectors>("vcon/hash-vectors.json").vectors;
const bytes = (name: string) => readFileSync(fixturePath(`vcon/${name}`));
const uuidOf = (name: string) => vconUuid(parseVcon(new Uint8Array(bytes(name)))) as string;
const payloadOf = (name: string) => vectors[name]?.sha256_vcon_server_after_read_normalization as string;
// Three fixtures are forms of one vCon (one uuid, one `vcon:<uuid>` key): they go in one after another.
const SAME_VCON = [
  "ietf-core03-ab_call_ext_rec.vcon.json",
  "ietf-core03-ab_call_ext_rec_signed.vcon.json",
  "ietf-core03-ab_call_ext_rec_encrypted.vcon.json",
];
const OTHERS = Object.keys(vectors).filter((n) => !SAME_VCON.includes(n));
const quiet = pino({ level: "silent" });
// The workers' requests, to see which creations went through our assets:withEvents extension.
const metrics = createConserverMetrics();

describe.skipIf(!up)("conserver → the real archivist service (Redis list, BullMQ, delivery worker)", () => {
  const prefix = uniqueName("real");
  const ingress = `${prefix}-in`;
  const queueName = `${prefix}-delivery`;
  let s: TestService;
  let token: string;
  let redis: Redis;
  let links: RunningConserver;
  let configPath: string;
  const workers: DeliveryWorker[] = [];

  beforeAll(async () => {
    s = await startTestService();
    token = await s.token(s.a);
    redis = new Redis(REDIS_URL);
    process.env.CONSERVER_REAL_SECRET = s.a.clientSecret;
    const dir = mkdtempSync(join(tmpdir(), "conserver-real-"));
    configPath = join(dir, "conserver.yml");
    writeFileSync(
      configPath,
      `
links:
  arch:
    module: archivist
    options:
      vcon_operation: created
      asset_free: true
      backend: {url: "${s.url}", client_id: "${s.a.clientId}", client_secret: "\${CONSERVER_REAL_SECRET}"}
chains:
  main: {links: [arch], ingress_lists: [${ingress}], egress_lists: [], enabled: 1}
delivery: {queue: ${queueName}, prefix: ${prefix}, attempts: 5, backoff_ms: 20}
`,
    );
    // Links only: delivery workers are started (and killed) by the tests.
    links = await runConserver(configPath, {
      redisUrl: REDIS_URL,
      log: quiet,
      deliver: false,
      vconKeyPrefix: `${prefix}:vcon:`,
      popTimeoutS: 1,
    });
  }, 60_000);

  afterAll(async () => {
    for (const w of workers) await w.close({ force: true }).catch(() => undefined);
    await links?.close();
    await deleteKeys(redis, prefix);
    await redis?.quit();
    // Delivery workers leave keep-alive sockets to the service: drop them so its close cannot wait on one.
    s?.service.server?.closeAllConnections();
    await s?.stop();
  });

  function startWorker(): DeliveryWorker {
    const queue = createQueue<DeliveryJob>(queueName, {
      redisUrl: REDIS_URL,
      prefix,
      attempts: 5,
      backoff: { type: "exponential", delayMs: 20, maxDelayMs: 200 },
      log: quiet,
      lockDurationMs: 1000,
      stalledIntervalMs: 500,
    });
    const w = startDeliveryWorker({
      queue,
      deadLetters: new MemoryDeadLetterStore(),
      concurrency: 2,
      retry: { baseDelayMs: 5, maxDelayMs: 50 },
      log: quiet,
      metrics,
    });
    workers.push(w);
    return w;
  }

  async function push(name: string): Promise<void> {
    const uuid = uuidOf(name);
    await redis.set(`${prefix}:vcon:${uuid}`, bytes(name));
    await redis.rpush(ingress, uuid);
  }

  /** Payloads of the vCon events on the vCon's assets, and how many assets it has. */
  async function assetPayloads(uuid: string): Promise<{ assets: number; payloads: unknown[] }> {
    const { assets, events } = await vconAssetEvents(s, token, uuid);
    return { assets, payloads: events.map((e) => e.payload) };
  }

  async function freePayloads(uuid: string): Promise<unknown[]> {
    const res = await s.api("/archivist/v1/events/search", {
      method: "POST",
      token,
      json: { filter: `trails/any(t: t eq 'vcon://${uuid}')` },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const events = ((await res.json()) as { events: Array<{ attributes: Record<string, unknown> }> }).events;
    return events.map((e) => e.attributes.payload);
  }

  async function recorded(name: string): Promise<boolean> {
    return (await assetPayloads(uuidOf(name))).payloads.includes(payloadOf(name));
  }

  it("records every fixture once, even when the worker dies mid-run and another takes over", async () => {
    const first = startWorker();
    for (const name of OTHERS) await push(name);
    // Kill the first worker once some (not necessarily all) events are in: jobs in flight are lost
    // by it and re-run by the next worker, which must look them up instead of recording twice.
    await until(async () => recorded(OTHERS[0] as string), 20_000, "first event");
    await first.close({ force: true });
    startWorker();
    for (const name of SAME_VCON) {
      await push(name);
      await until(async () => recorded(name), 20_000, name);
    }
    for (const name of OTHERS) await until(async () => recorded(name), 20_000, name);
    for (const name of Object.keys(vectors)) {
      const uuid = uuidOf(name);
      const { assets, payloads } = await assetPayloads(uuid);
      expect(assets, name).toBe(1);
      expect(
        payloads.filter((p) => p === payloadOf(name)),
        name,
      ).toHaveLength(1);
      await until(async () => (await freePayloads(uuid)).includes(payloadOf(name)), 5000, `${name} free`);
      expect(
        (await freePayloads(uuid)).filter((p) => p === payloadOf(name)),
        name,
      ).toHaveLength(1);
    }
    // The three forms of ext_rec are three versions on one asset.
    expect((await assetPayloads(uuidOf(SAME_VCON[0] as string))).payloads).toHaveLength(3);
    // This service offers assets:withEvents: every asset was made with its first event, none plainly.
    const requests = await metrics.registry.getSingleMetricAsString("conserver_delivery_requests_total");
    expect(requests).toMatch(/route="assets\.create_with_events",status="200"} \d+/);
    expect(requests).not.toMatch(/route="assets\.create_with_events",status="404"/);
    expect(requests).not.toMatch(/route="assets\.create",/);
    // It offers assets:batchWithEvents too: concurrent creations never fell back to single ones.
    expect(requests).not.toMatch(/route="assets\.batch_with_events",status="(404|405|501)"/);
    // And assets/-/events:batch: a later operation's events never fell back to single posts for good.
    expect(requests).not.toMatch(/route="events\.create_batch",status="(404|405|501)"/);
  }, 60_000);

  it("conserverCli dlq list shows a dead letter (secret masked) and dlq retry re-drives it into the ledger", async () => {
    const out: string[] = [];
    const io = { out: (t: string) => void out.push(t), err: (t: string) => void out.push(t) };
    const args = ["--config", configPath, "--redis-url", REDIS_URL];
    expect(await conserverCli(["dlq", "list", ...args], io)).toBe(0);
    expect(out.join("")).toContain("0 dead-lettered delivery job(s)");
    // A job dead-lettered earlier (say the backend refused it then): an `enhanced` event of one fixture.
    const name = OTHERS[1] as string;
    const doc = parseVcon(new Uint8Array(bytes(name)));
    const event = buildVconEvent(doc, "enhanced", {
      link: "archivist",
      linkName: "arch",
      hashMode: "python-json-normalized",
    });
    const uuid = uuidOf(name);
    const key = idempotencyKey(uuid, "vcon_enhanced", payloadOf(name));
    const backend = { url: s.url, clientId: s.a.clientId, clientSecret: s.a.clientSecret };
    await new RedisDeadLetterStore(redis, deadLetterKey(prefix, queueName)).push({
      id: key,
      job: { idempotencyKey: key, vconUuid: uuid, event, backend },
      reason: "HTTP 400: refused",
      status: 400,
      attempts: 1,
      failedAt: new Date().toISOString(),
    });
    out.length = 0;
    expect(await conserverCli(["dlq", "list", "--json", ...args], io)).toBe(0);
    const listed = JSON.parse(out.join("")) as Array<{
      id: string;
      job: { backend: { clientSecret: string } };
    }>;
    expect(listed.map((e) => e.id)).toEqual([key]);
    expect(listed[0]?.job.backend.clientSecret).toBe("***");
    expect(await conserverCli(["dlq", "retry", ...args, "no-such-id"], io)).toBe(1);
    expect(await conserverCli(["dlq", "retry", ...args], io)).toBe(0);
    // The worker started by the first test takes the re-driven job.
    const enhanced = async () =>
      (await vconAssetEvents(s, token, uuid)).events.filter((e) => e.vcon_operation === "vcon_enhanced")
        .length;
    await until(async () => (await enhanced()) > 0, 20_000, "re-driven event");
    expect(await enhanced()).toBe(1);
    out.length = 0;
    expect(await conserverCli(["dlq", "list", ...args], io)).toBe(0);
    expect(out.join("")).toContain("0 dead-lettered delivery job(s)");
    expect(await conserverCli(["bogus"], io)).toBe(64);
  }, 30_000);
});
