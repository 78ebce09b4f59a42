import { readFileSync } from "node:fs";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../plugins/conserver/config/load-config.js";
import { parseLossless, parseVcon, pythonDumps, vconUuid } from "../../../plugins/conserver/vcon.js";
import { fixturePath } from "../../helpers/fixtures.js";
import { conserverOnFake, redisUp, uniqueName, until } from "./redis-env.js";

const up = await redisUp();

// What vcon-server's `webhook` link sends (conserver/links/webhook): requests.post(url,
// json=vCon.to_dict(), headers=opts["headers"]), i.e. Python json.dumps with its default
// separators, a JSON content type and the configured headers (x-conserver-api-token here). It
// never reads the status it gets back.
const pythonPost = (url: string, name: string, token: string) => {
  const text = readFileSync(fixturePath(`vcon/${name}`), "utf8");
  return fetch(url, {
    method: "POST",
    body: pythonDumps(parseLossless(text)),
    headers: { "Content-Type": "application/json", "x-conserver-api-token": token },
  });
};

describe.skipIf(!up)("archivist conserver run: the webhook ingress", () => {
  const prefix = uniqueName("hook");
  const ingress = `${prefix}-in`;
  // What the conserver logged, one JSON line each.
  const logged: string[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => void logged.push(line) });
  const suite = conserverOnFake(
    prefix,
    ingress,
    (backendUrl) => `
links:
  arch:
    module: archivist
    options:
      vcon_operation: received
      backend: {url: "${backendUrl}", client_id: client-1, client_secret: secret-1}
chains:
  main: {links: [arch], ingress_lists: [${ingress}], egress_lists: [], enabled: 1}
webhook: {listen: "127.0.0.1:0", path: /hooks/vcon, token: hook-secret}
delivery: {queue: ${prefix}-delivery, prefix: ${prefix}, attempts: 3, backoff_ms: 20}
`,
    log,
  );

  it("answers only once the vCon is stored and queued, then the chain records it", async () => {
    const url = suite.running.webhook?.url as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks\/vcon$/);
    const name = "vcon-js-interop-inline-recording.vcon.json";
    const uuid = vconUuid(parseVcon(new Uint8Array(readFileSync(fixturePath(`vcon/${name}`))))) as string;
    const res = await pythonPost(url, name, "hook-secret");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ uuid, queued: ingress });
    // Stored before the answer: the key is there the moment the 200 arrives.
    expect(await suite.redis.exists(`${prefix}:vcon:${uuid}`)).toBe(1);
    await until(
      () => suite.backend.fake.events.some((e) => e.event_attributes.subject === `vcon://${uuid}`),
      8000,
      "event",
    );
    const event = suite.backend.fake.events.find((e) => e.event_attributes.subject === `vcon://${uuid}`);
    expect(event?.event_attributes.vcon_operation).toBe("vcon_received");
    // Issue 74: the webhook wrote the vCon and the link read it, each through a store of its own that
    // found RedisJSON missing and said so: twice per start. Once, or never where it is loaded.
    const modules = JSON.stringify(await suite.redis.call("MODULE", "LIST"));
    const said = logged.filter((l) => l.includes("RedisJSON not loaded"));
    expect(said).toHaveLength(/rejson/i.test(modules) ? 0 : 1);
  });

  it("refuses a wrong token and what is not a vCon, and queues nothing for them", async () => {
    const url = suite.running.webhook?.url as string;
    const name = "vcon-js-legacy-0.0.1-text-chat.vcon.json";
    const uuid = vconUuid(parseVcon(new Uint8Array(readFileSync(fixturePath(`vcon/${name}`))))) as string;
    expect((await pythonPost(url, name, "wrong")).status).toBe(401);
    const bad = await fetch(url, {
      method: "POST",
      body: '{"not": "a vcon"}',
      headers: { "content-type": "application/json", "x-conserver-api-token": "hook-secret" },
    });
    expect(bad.status).toBe(400);
    // The chain pops what is queued at once, so an empty list alone would prove little.
    expect(await suite.redis.exists(`${prefix}:vcon:${uuid}`)).toBe(0);
    expect(await suite.redis.llen(ingress)).toBe(0);
  });
});

describe("the webhook: config section", () => {
  const base = "links: {a: {module: archivist}}\nchains: {main: {links: [a], ingress_lists: [in]}}\n";
  it("defaults to 127.0.0.1:8090 /vcon on the first enabled chain", () => {
    expect(parseConfig(`${base}webhook: {}`).webhook).toEqual({
      host: "127.0.0.1",
      port: 8090,
      path: "/vcon",
      header: "x-conserver-api-token",
      chain: "main",
      limitBytes: 10 * 1024 * 1024,
    });
    expect(parseConfig(base).webhook).toBeUndefined();
  });
  it("names the key it refuses", () => {
    expect(() => parseConfig(`${base}webhook: {listen: "nowhere"}`)).toThrow("webhook.listen");
    expect(() => parseConfig(`${base}webhook: {chain: other}`)).toThrow("webhook.chain");
    expect(() => parseConfig(`${base}webhook: {path: "vcon"}`)).toThrow("webhook.path");
  });
});
