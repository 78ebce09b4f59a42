import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runDemo } from "../../plugins/conserver/demo/main.js";
import { REDIS_URL, redisUp } from "../integration/conserver/redis-env.js";

// `npm run demo`, end to end: the fixture vCons through the archivist link, a queue and the
// delivery worker into the service on its embedded default, each receipt verified offline.
const fixtures = readdirSync(new URL("../../plugins/conserver/demo/vcons/", import.meta.url)).filter((f) =>
  f.endsWith(".json"),
);

async function demo(redisUrl: string | undefined): Promise<{ code: number; lines: string[] }> {
  const saved = process.env.REDIS_URL;
  if (redisUrl) process.env.REDIS_URL = redisUrl;
  else delete process.env.REDIS_URL;
  const lines: string[] = [];
  try {
    return { code: await runDemo((l) => lines.push(l)), lines };
  } finally {
    if (saved === undefined) delete process.env.REDIS_URL;
    else process.env.REDIS_URL = saved;
  }
}

function expectAllVerified(r: { code: number; lines: string[] }): void {
  expect(r.code, r.lines.join("\n")).toBe(0);
  const verified = r.lines.filter((l) => l.includes("receipt verified (mmr "));
  expect(verified).toHaveLength(fixtures.length);
  expect(r.lines.at(-1)).toBe(`all ${fixtures.length} vCon events recorded once and verified`);
}

describe("npm run demo", () => {
  it("records every fixture vCon once and verifies its receipt, with the in-process queue", async () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(9);
    expectAllVerified(await demo(undefined));
  }, 120_000);

  it("does the same through BullMQ on Redis", async (t) => {
    if (!(await redisUp())) t.skip();
    const r = await demo(REDIS_URL);
    expect(r.lines[0]).toContain("BullMQ");
    expectAllVerified(r);
  }, 120_000);
});
