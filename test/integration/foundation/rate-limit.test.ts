import { afterAll, describe, expect, it } from "vitest";
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
