import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startChild } from "../helpers/child-service.js";
import { freePort } from "../helpers/ports.js";
import { processOutput } from "../helpers/process-output.js";
import { REDIS_URL, redisUp } from "../integration/conserver/redis-env.js";

// `npm run demo`, end to end and as its own process (from the sources, as `npm run demo` runs the
// build): the fixture vCons through the archivist link, a queue and the delivery worker into the
// service on its embedded default, each receipt verified offline; the exit status is what a user sees.
const MAIN = fileURLToPath(new URL("../../plugins/conserver/demo/main.ts", import.meta.url));
const fixtures = readdirSync(new URL("../../plugins/conserver/demo/vcons/", import.meta.url)).filter((f) =>
  f.endsWith(".json"),
);

async function demo(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number | null; out: string[]; err: string }> {
  const { REDIS_URL: _r, VCON_DIR: _v, ...inherited } = process.env;
  const proc = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const { code, out, err } = await processOutput(proc);
  return { code, out: out.split("\n").filter(Boolean), err };
}

function expectAllVerified(r: Awaited<ReturnType<typeof demo>>): void {
  expect(r.code, `${r.out.join("\n")}\n${r.err}`).toBe(0);
  const verified = r.out.filter((l) => l.includes("receipt verified (log entry "));
  expect(verified).toHaveLength(fixtures.length);
  expect(r.out.filter((l) => l.includes("RECEIPT FAILED"))).toEqual([]);
  expect(r.out.at(-1)).toBe(`all ${fixtures.length} vCon events recorded once and verified`);
}

describe("npm run demo", () => {
  it("records every fixture vCon once, verifies its receipt and exits 0, with the in-process queue, on --port", async () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(9);
    // Issue 74: a port like every other command's (`archivist serve --port`).
    const port = await freePort();
    const r = await demo({}, ["--port", String(port)]);
    expect(r.out[0]).toContain("queue: in-process");
    expect(r.out[1]).toBe(`the demo's service answers on http://127.0.0.1:${port} until the demo ends`);
    expectAllVerified(r);
  }, 90_000);

  it("refuses a --port that is no port, or beside --url: 64, said on stderr", async () => {
    for (const args of [
      ["--port", "abc"],
      ["--port", "8090", "--url", "http://127.0.0.1:1"],
    ]) {
      const r = await demo({}, args);
      expect(r.code, r.err).toBe(64);
      expect(r.out).toEqual([]);
      expect(r.err).toMatch(/^demo: --port /);
    }
  }, 60_000);

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

  it("--url records into a running service, where the records stay", async () => {
    const dir = mkdtempSync(join(tmpdir(), "demo-url-"));
    const service = await startChild("serve", { DATA_DIR: dir, BASE_URL: "" }, await freePort(), 150_000);
    try {
      const r = await demo({}, ["--url", service.url, "--credentials", join(dir, "bootstrap.json")]);
      expect(r.out[0]).toBe(`recording into ${service.url} (the records stay); queue: in-process`);
      // It delivers as a conserver does: as an application of its own with the conserver's access
      // policy, registered with the owner's credentials as the README's walk-through does.
      expect(r.out[1]).toMatch(
        /^registered applications\/[0-9a-f-]{36} with access_policies\/[0-9a-f-]{36} \(AssetCreator, RecordEvidence on vCon assets\)$/,
      );
      expect(r.code, `${r.out.join("\n")}\n${r.err}`).toBe(0);
      expect(r.out.filter((l) => l.includes("receipt verified (log entry "))).toHaveLength(fixtures.length);
      expect(r.out.at(-1)).toMatch(/^see them at http:\/\/127\.0\.0\.1:\d+\/console/);
      // Still there after the demo: the assets of the fixture vCons, read with the same credentials.
      const creds = JSON.parse(readFileSync(join(dir, "bootstrap.json"), "utf8")) as {
        client_id: string;
        client_secret: string;
      };
      const token = (await (
        await fetch(`${service.url}/archivist/iam/v1/appidp/token`, {
          method: "POST",
          body: new URLSearchParams({ grant_type: "client_credentials", ...creds }),
        })
      ).json()) as { access_token: string };
      const assets = (await (
        await fetch(`${service.url}/archivist/v2/assets`, {
          headers: { authorization: `Bearer ${token.access_token}` },
        })
      ).json()) as { assets: unknown[] };
      expect(assets.assets.length).toBeGreaterThan(0);
      // Every event was accepted from that application, none from the owner.
      const app = /^registered applications\/(\S+) /.exec(r.out[1] ?? "")?.[1];
      const events = (await (
        await fetch(
          `${service.url}/archivist/v2/assets/-/events?event_attributes.arc_display_type=vcon_created`,
          {
            headers: { authorization: `Bearer ${token.access_token}` },
          },
        )
      ).json()) as { events: Array<{ principal_accepted: { subject?: string } }> };
      expect(events.events).toHaveLength(fixtures.length);
      expect(new Set(events.events.map((e) => e.principal_accepted.subject))).toEqual(new Set([app]));
      expect(app).not.toBe(creds.client_id);
      const policyEvents = async () =>
        (
          (await (
            await fetch(
              `${service.url}/archivist/v2/assets/-/events?event_attributes.arc_display_type=arc_access_policy`,
              { headers: { authorization: `Bearer ${token.access_token}` } },
            )
          ).json()) as { events: unknown[] }
        ).events.length;
      const policiesBefore = await policyEvents();
      // A second run finds every vCon already recorded: nothing twice.
      const again = await demo({}, ["--url", service.url, "--credentials", join(dir, "bootstrap.json")]);
      expect(again.code, again.out.join("\n")).toBe(0);
      // Issue 74: it delivers as the application the first run registered, so no second access
      // policy is written into every vCon's trail (an asset of 1,000 records had 1,002 events).
      expect(again.out.join("\n")).toContain("the conserver application an earlier run registered");
      expect(await policyEvents()).toBe(policiesBefore);
      // An application without the conserver's access policy is refused, and the demo says why
      // and where the refused deliveries are, instead of waiting for records that never come.
      const bare = (await (
        await fetch(`${service.url}/archivist/iam/v1/applications`, {
          method: "POST",
          headers: { authorization: `Bearer ${token.access_token}`, "content-type": "application/json" },
          body: JSON.stringify({ display_name: "no policy" }),
        })
      ).json()) as { client_id: string; credentials: Array<{ secret: string }> };
      const refused = await demo({}, [
        "--url",
        service.url,
        "--client-id",
        bare.client_id,
        "--client-secret",
        bare.credentials[0]?.secret ?? "",
      ]);
      expect(refused.code).toBe(1);
      expect(refused.out).toContainEqual(
        // One delivery's refusal names its status first; a batch item's after its reason.
        expect.stringMatching(
          /^dead-lettered \S+: .*(403.*creating assets is not permitted|creating assets is not permitted.*403)/,
        ),
      );
      expect(refused.out).toContainEqual(
        expect.stringMatching(/^\d+ delivery job\(s\) dead-lettered \(in the demo's in-process store\)$/),
      );
    } finally {
      await service.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
