import { afterAll, describe, expect, it } from "vitest";
import { memoryRateLimiter, redisRateLimiter } from "../../../src/http/rate-limit.js";
import { startTestService, type TestService } from "../../helpers/service.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const services: TestService[] = [];
afterAll(async () => {
  for (const s of services) await s.stop();
});

async function burst(s: TestService, n: number): Promise<Response[]> {
  const token = await s.token(s.a);
  return Promise.all(Array.from({ length: n }, () => s.api("/archivist/v2/assets", { token })));
}

describe.each([
  ["in-process", {}],
  ["Redis", { REDIS_URL }],
])("per-tenancy rate limit (%s)", (_name, env) => {
  it("answers 429 with Archivist-Rate-Limit-Reset past the limit, and the JSON error body", async () => {
    const s = await startTestService({ ARCHIVIST_RATE_LIMIT_RPS: "3", ...env });
    services.push(s);
    expect((await s.api("/readyz")).status).toBe(200);
    const answers = await burst(s, 12);
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(answers.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    const first = limited[0] as Response;
    expect(Number(first.headers.get("archivist-rate-limit-reset"))).toBeGreaterThanOrEqual(1);
    expect(first.headers.get("retry-after")).not.toBeNull();
    expect(await first.json()).toMatchObject({ code: 8, details: [] });
  });
});

describe("a batch's items count against the rate limit", () => {
  /** A batch route's 30 items, made with `token` (an events batch names an asset made first). */
  const batches: Array<[string, (s: TestService, token: string) => Promise<unknown>]> = [
    [
      "assets:batchWithEvents",
      async () => ({
        requests: Array.from({ length: 30 }, (_, n) => ({
          attributes: { arc_display_type: "call", charged: String(n) },
          events: [{ operation: "Record", behaviour: "RecordEvidence", event_attributes: { n: String(n) } }],
        })),
      }),
    ],
    [
      "assets/-/events:batch",
      async (s, token) => {
        const made = await s.api("/archivist/v2/assets", { method: "POST", token, json: {} });
        const asset = ((await made.json()) as { identity: string }).identity;
        return {
          requests: Array.from({ length: 30 }, (_, n) => ({
            asset_identity: asset,
            event: { operation: "Record", behaviour: "RecordEvidence", event_attributes: { n: String(n) } },
          })),
        };
      },
    ],
  ];

  it.each(batches)(
    "admits %s as one request, and the next requests pay for its other items",
    async (path, body) => {
      const s = await startTestService({ ARCHIVIST_RATE_LIMIT_RPS: "3" });
      services.push(s);
      const token = await s.token(s.a);
      const batch = await s.api(`/archivist/v2/${path}`, {
        method: "POST",
        token,
        json: await body(s, token),
      });
      expect(batch.status, await batch.clone().text()).toBe(200);
      // 29 requests' worth of debt at 3 a second: the very next request is refused.
      const next = await s.api("/archivist/v2/assets", { token });
      expect(next.status).toBe(429);
      expect(Number(next.headers.get("archivist-rate-limit-reset"))).toBeGreaterThanOrEqual(2);
    },
  );

  it.each([
    ["in-process", () => memoryRateLimiter(3)],
    ["Redis", () => redisRateLimiter(3, REDIS_URL)],
  ])("charges without refusing, and refuses the next request (%s)", async (_name, make) => {
    const limiter = make();
    const tenant = `charge-${Math.random().toString(36).slice(2)}`;
    try {
      // Redis counts fixed one-second windows: start early in one, so both calls fall in it.
      while (Date.now() % 1000 > 300) await new Promise((r) => setTimeout(r, 10));
      await limiter.take(tenant);
      await limiter.charge(tenant, 5);
      await expect(limiter.take(tenant)).rejects.toMatchObject({ kind: "rate_limited" });
    } finally {
      await limiter.close();
    }
  });
});
