import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { REDIS_URL, redisUp } from "../integration/conserver/redis-env.js";

// `npm run demo`, end to end and as its own process (from the sources, as `npm run demo` runs the
// build): the fixture vCons through the archivist link, a queue and the delivery worker into the
// service on its embedded default, each receipt verified offline; the exit status is what a user sees.
const MAIN = fileURLToPath(new URL("../../plugins/conserver/demo/main.ts", import.meta.url));
const fixtures = readdirSync(new URL("../../plugins/conserver/demo/vcons/", import.meta.url)).filter((f) =>
  f.endsWith(".json"),
);

function demo(env: Record<string, string>): Promise<{ code: number | null; out: string[]; err: string }> {
  const { REDIS_URL: _r, VCON_DIR: _v, ...inherited } = process.env;
  const proc = spawn(process.execPath, ["--import", "tsx", MAIN], {
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  proc.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  proc.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve, reject) => {
    proc.once("error", reject);
    proc.once("close", (code) => resolve({ code, out: out.split("\n").filter(Boolean), err }));
  });
}

function expectAllVerified(r: Awaited<ReturnType<typeof demo>>): void {
  expect(r.code, `${r.out.join("\n")}\n${r.err}`).toBe(0);
  const verified = r.out.filter((l) => l.includes("receipt verified (mmr "));
  expect(verified).toHaveLength(fixtures.length);
  expect(r.out.filter((l) => l.includes("RECEIPT FAILED"))).toEqual([]);
  expect(r.out.at(-1)).toBe(`all ${fixtures.length} vCon events recorded once and verified`);
}

describe("npm run demo", () => {
  it("records every fixture vCon once, verifies its receipt and exits 0, with the in-process queue", async () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(9);
    const r = await demo({});
    expect(r.out[0]).toContain("queue: in-process");
    expectAllVerified(r);
  }, 90_000);

  it("does the same through BullMQ on Redis", async (t) => {
    if (!(await redisUp())) t.skip();
    const r = await demo({ REDIS_URL });
    expect(r.out[0]).toContain(`BullMQ on ${REDIS_URL}`);
    expectAllVerified(r);
  }, 90_000);

  it("exits 1 and says why when a sample is not a vCon", async () => {
    const dir = mkdtempSync(join(tmpdir(), "demo-vcons-"));
    try {
      writeFileSync(join(dir, "broken.vcon.json"), "{ not json");
      const r = await demo({ VCON_DIR: dir });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/^demo: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
