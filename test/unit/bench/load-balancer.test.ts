import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { haproxyInstalled, startHaproxy } from "../../../bench/load-balancer.js";

const installed = haproxyInstalled();
if (!installed && process.env.CI === "true")
  throw new Error(
    "the scale-out bench's balancer needs haproxy in CI (apt-get install haproxy; .ci/run does)",
  );

/** An API stand-in answering /readyz and its own name. */
async function backend(name: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(req.url === "/readyz" ? "ok" : name);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe.runIf(installed)("the scale-out bench's load balancer (Debian's haproxy)", () => {
  const servers: Server[] = [];
  afterAll(() => {
    for (const s of servers) s.close();
  });

  it("spreads requests over every API process behind one address", async () => {
    const a = await backend("a");
    const b = await backend("b");
    servers.push(a.server, b.server);
    const lb = await startHaproxy([a.origin, b.origin]);
    try {
      const seen = new Map<string, number>();
      for (let i = 0; i < 20; i++) {
        const text = await (await fetch(`${lb.origin}/who`)).text();
        seen.set(text, (seen.get(text) ?? 0) + 1);
      }
      expect([...seen.keys()].sort()).toEqual(["a", "b"]);
      expect(seen.get("a")).toBeGreaterThanOrEqual(5);
      expect(seen.get("b")).toBeGreaterThanOrEqual(5);
    } finally {
      await lb.stop();
    }
  });
});
