import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conserverCli } from "../../../plugins/conserver/cli.js";
import {
  deadLetterKey,
  RedisDeadLetterStore,
} from "../../../plugins/conserver/dead-letters/delivery-store.js";
import { captureIo } from "../../helpers/cli-output.js";
import { REDIS_URL, redisUp, uniqueName } from "./redis-env.js";

const up = await redisUp();

// Issue 50: `conserver run` wrote its dead letters to the Redis its shell named (REDIS_URL), and
// `dlq list` in another shell read db 0 and answered "0 dead-lettered" without saying where it
// looked. A config's `redis_url:` now names one Redis to both, and every answer says which.
describe.skipIf(!up)("conserver dlq list: reads where the config's conserver writes, and says where", () => {
  // Another database of the same server: what a REDIS_URL ending in /<db> selects.
  const db = 11;
  const url = `${REDIS_URL.replace(/\/\d*$/, "")}/${db}`;
  const prefix = uniqueName("where");
  const queue = `${prefix}-delivery`;
  const ingress = `${prefix}-in`;
  const dir = mkdtempSync(join(tmpdir(), "dlq-where-"));
  const config = join(dir, "conserver.yml");
  let redis: Redis;
  const saved = process.env.REDIS_URL;

  beforeAll(async () => {
    writeFileSync(
      config,
      `redis_url: "${url}"
links:
  a: {module: archivist, options: {vcon_operation: created, backend: {url: "http://127.0.0.1:1", client_id: x, client_secret: "\${NEVER_SET_SECRET}"}}}
chains:
  main: {links: [a], ingress_lists: [${ingress}], egress_lists: [], enabled: 1}
delivery: {queue: ${queue}, prefix: ${prefix}}
`,
    );
    redis = new Redis(url);
    await new RedisDeadLetterStore(redis, deadLetterKey(prefix, queue)).push({
      id: "v-1:vcon_created:abc",
      job: {} as never,
      reason: "POST /archivist/v2/assets:withEvents answered 403",
      status: 403,
      attempts: 1,
      failedAt: new Date().toISOString(),
    });
    await redis.rpush(`DLQ:${ingress}`, "u-1", "u-2");
    // The operator's shell names no Redis: the config alone must lead to db 11.
    delete process.env.REDIS_URL;
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.REDIS_URL;
    else process.env.REDIS_URL = saved;
    await redis.del(deadLetterKey(prefix, queue), `DLQ:${ingress}`);
    await redis.quit();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the delivery dead letters and the ingress lists' from the config's redis_url, naming both", async () => {
    const c = captureIo();
    expect(await conserverCli(["dlq", "list", "--config", config], c.io)).toBe(0);
    const text = c.out.join("");
    expect(text).toMatch(/^v-1:vcon_created:abc\t\S+\t403\tattempts=1\tPOST .* answered 403\n/);
    const where = `on redis://${new URL(url).host} db ${db} (from redis_url in ${config})`;
    expect(text).toContain(`1 dead-lettered delivery job(s) in ${prefix}:dlq:${queue} ${where}\n`);
    expect(text).toContain(`2 vCon(s) in DLQ:${ingress} (list them with --ingress ${ingress})\n`);
  });

  it("a --redis-url overrides the config, and the answer says so", async () => {
    const c = captureIo();
    const other = `${REDIS_URL.replace(/\/\d*$/, "")}/12`;
    expect(await conserverCli(["dlq", "list", "--config", config, "--redis-url", other], c.io)).toBe(0);
    expect(c.out.join("")).toContain(
      `0 dead-lettered delivery job(s) in ${prefix}:dlq:${queue} on redis://${new URL(url).host} db 12 (from --redis-url)\n`,
    );
  });
});
