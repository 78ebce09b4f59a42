import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conserverCli } from "../../../plugins/conserver/cli.js";
import { describeRedis } from "../../../plugins/conserver/config/redis-source.js";
import { captureIo } from "../../helpers/cli-output.js";
import { REDIS_URL, redisUp, uniqueName } from "./redis-env.js";

const up = await redisUp();

describe.skipIf(!up)("conserver dlq --ingress: the link runtime's DLQ:<list>", () => {
  const list = uniqueName("ingress");
  const dlq = `DLQ:${list}`;
  let redis: Redis;
  const cli = (args: string[], c = captureIo()) =>
    conserverCli(["dlq", ...args, "--ingress", list, "--redis-url", REDIS_URL], c.io).then((code) => ({
      code,
      ...c,
    }));

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    await redis.rpush(dlq, "u-1", "u-2", "u-3", "u-4");
    // The runtime records why beside the list (runtime/redis-lists.ts); u-1 failed before it did.
    const reason = {
      code: "CONSENT_REFUSED",
      message: "vcon_inference_performed refused",
      at: "2026-01-01T00:00:00.000Z",
    };
    await redis.hset(`${dlq}:reasons`, "u-2", JSON.stringify(reason), "u-3", JSON.stringify(reason));
  });
  afterAll(async () => {
    await redis.del(dlq, list, `${dlq}:reasons`);
    await redis.quit();
  });

  it("lists the dead-lettered uuids oldest first", async () => {
    const json = await cli(["list", "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out.join(""))).toEqual(["u-1", "u-2", "u-3", "u-4"]);
    const text = await cli(["list", "--limit", "2"]);
    expect(text.out.join("")).toBe(
      `u-1\nu-2  CONSENT_REFUSED: vcon_inference_performed refused (2026-01-01T00:00:00.000Z)\n2 vCon(s) in ${dlq} on ${describeRedis(REDIS_URL)} (from --redis-url)\n`,
    );
  });

  it("re-drives named uuids onto the ingress list, and says which were not there", async () => {
    const r = await cli(["retry", "u-3", "u-9"]);
    expect(r.code).toBe(1);
    expect(r.err.join("")).toContain(`not in ${dlq}: u-9`);
    expect(await redis.lrange(list, 0, -1)).toEqual(["u-3"]);
    expect(await redis.lrange(dlq, 0, -1)).toEqual(["u-1", "u-2", "u-4"]);
    // A re-driven vCon's reason goes with it; the others' stay.
    expect(await redis.hkeys(`${dlq}:reasons`)).toEqual(["u-2"]);
  });

  it("re-drives the rest in order, up to --limit, without losing or doubling any", async () => {
    expect((await cli(["retry", "--limit", "2"])).code).toBe(0);
    expect(await redis.lrange(dlq, 0, -1)).toEqual(["u-4"]);
    const r = await cli(["retry"]);
    expect(r.out.join("")).toContain("1 vCon(s) re-queued");
    expect(await redis.lrange(list, 0, -1)).toEqual(["u-3", "u-1", "u-2", "u-4"]);
    expect(await redis.exists(dlq)).toBe(0);
  });
});
