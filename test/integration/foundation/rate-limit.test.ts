import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

describe.each([
  ["in-process", {}],
  ["Redis", { REDIS_URL }],
])("a batch's items count against the rate limit, each as a request (%s)", (_name, env) => {
  const RPS = 10;
  let s: TestService;
  let token: string;
  /** The asset the events batches name. */
  let asset: string;
  beforeAll(async () => {
    s = await startTestService({ ARCHIVIST_RATE_LIMIT_RPS: String(RPS), ...env });
    services.push(s);
    token = await s.token(s.a);
    const made = await s.api("/archivist/v2/assets", { method: "POST", token, json: {} });
    asset = ((await made.json()) as { identity: string }).identity;
  });
  /** A batch route's `n` items. */
  const batches: Array<[string, (n: number) => unknown]> = [
    [
      "assets:batchWithEvents",
      (n) => ({
        requests: Array.from({ length: n }, (_, i) => ({
          attributes: { arc_display_type: "call", charged: String(i) },
          events: [{ operation: "Record", behaviour: "RecordEvidence", event_attributes: { n: String(i) } }],
        })),
      }),
    ],
    [
      "assets/-/events:batch",
      (n) => ({
        requests: Array.from({ length: n }, (_, i) => ({
          asset_identity: asset,
          event: { operation: "Record", behaviour: "RecordEvidence", event_attributes: { n: String(i) } },
        })),
      }),
    ],
  ];
  /** A full bucket, and a fresh window, for each test: what the tests before took is forgotten. */
  const refilled = () => new Promise((r) => setTimeout(r, 2100));

  type Answer = { responses: Array<{ error?: { status: number; code: number } }> };
  /** Items a batch's answer made, and its items refused by the limit (a refused batch: all of them). */
  async function tally(res: Response, n: number): Promise<{ made: number; limited: number }> {
    if (res.status === 429) return { made: 0, limited: n };
    expect(res.status, await res.clone().text()).toBe(200);
    const { responses } = (await res.json()) as Answer;
    expect(responses).toHaveLength(n);
    const limited = responses.filter((r) => r.error?.status === 429);
    for (const r of limited) expect(r.error).toMatchObject({ status: 429, code: 8 });
    // Items run are answered first, in order; the refused ones are the last.
    expect(responses.findIndex((r) => r.error?.status === 429)).not.toBe(0);
    return { made: responses.filter((r) => !r.error).length, limited: limited.length };
  }

  it.each(batches)("ten 100-item %s batches at once admit what the rate admits", async (path, body) => {
    const bodies = Array.from({ length: 10 }, () => body(100));
    await refilled();
    const started = Date.now();
    const answers = await Promise.all(
      bodies.map((json) => s.api(`/archivist/v2/${path}`, { method: "POST", token, json })),
    );
    const seconds = Math.ceil((Date.now() - started) / 1000);
    const counts = await Promise.all(answers.map((r) => tally(r, 100)));
    const made = counts.reduce((a, c) => a + c.made, 0);
    // One second's burst and what the time taken refilled (a fixed window: one more at its edge).
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(RPS * (seconds + 2));
    expect(made + counts.reduce((a, c) => a + c.limited, 0)).toBe(1000);
  });

  it.each(batches)("a 100-item %s batch each second admits the rate, not the batches", async (path, body) => {
    const bodies = Array.from({ length: 4 }, () => body(100));
    await refilled();
    const started = Date.now();
    let made = 0;
    for (const json of bodies) {
      const sent = Date.now();
      made += (await tally(await s.api(`/archivist/v2/${path}`, { method: "POST", token, json }), 100)).made;
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - sent))));
    }
    const seconds = Math.ceil((Date.now() - started) / 1000);
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(RPS * (seconds + 2));
  });
});

describe.each([
  ["in-process", () => memoryRateLimiter(3)],
  ["Redis", () => redisRateLimiter(3, REDIS_URL)],
])("takeUpTo (%s)", (_name, make) => {
  it("grants no more than the limit to concurrent callers, in one step each", async () => {
    const limiter = make();
    const tenant = `take-${Math.random().toString(36).slice(2)}`;
    try {
      // Redis counts fixed one-second windows: start early in one, so every call falls in it.
      while (Date.now() % 1000 > 300) await new Promise((r) => setTimeout(r, 10));
      await limiter.take(tenant);
      const granted = await Promise.all(Array.from({ length: 5 }, () => limiter.takeUpTo(tenant, 2)));
      expect(granted.reduce((a, n) => a + n, 0)).toBe(2);
      expect(await limiter.takeUpTo(tenant, 0)).toBe(0);
      await expect(limiter.take(tenant)).rejects.toMatchObject({ kind: "rate_limited" });
    } finally {
      await limiter.close();
    }
  });
});
