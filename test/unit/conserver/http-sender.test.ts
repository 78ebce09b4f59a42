import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepAliveSender } from "../../../src/client/index.js";

describe("keep-alive sender (undici)", () => {
  let server: Server;
  let url = "";
  const seen: Array<{ method?: string; body: string; auth?: string }> = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({
          method: req.method,
          body: Buffer.concat(chunks).toString(),
          auth: req.headers.authorization,
        });
        if (req.url === "/slow") return; // never answers
        res.writeHead(req.url === "/limited" ? 429 : 200, {
          "content-type": "application/json",
          "Archivist-Rate-Limit-Reset": "2",
        });
        res.end(JSON.stringify({ ok: req.url }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const req = (o: { timeoutMs?: number; signal?: AbortSignal; body?: string } = {}) => ({
    method: (o.body ? "POST" : "GET") as "GET" | "POST",
    headers: { authorization: "Bearer t" },
    ...(o.body ? { body: o.body } : {}),
    signal: o.signal ?? new AbortController().signal,
    timeoutMs: o.timeoutMs ?? 5000,
  });

  it("sends method, headers and body, and reads status, headers and JSON", async () => {
    const send = keepAliveSender();
    const a = await send(`${url}/ok`, req({ body: '{"x":1}' }));
    expect(a.status).toBe(200);
    expect(await a.json()).toEqual({ ok: "/ok" });
    const b = await send(`${url}/limited`, req());
    expect(b.status).toBe(429);
    expect(b.headers.get("archivist-rate-limit-reset")).toBe("2");
    expect(b.headers.get("Archivist-Rate-Limit-Reset")).toBe("2");
    expect(b.headers.get("retry-after")).toBeNull();
    expect(await b.text()).toContain("/limited");
    expect(seen.slice(0, 2)).toEqual([
      { method: "POST", body: '{"x":1}', auth: "Bearer t" },
      { method: "GET", body: "", auth: "Bearer t" },
    ]);
  });

  it("gives up after the request timeout, and on the job's abort", async () => {
    const send = keepAliveSender();
    const t0 = Date.now();
    await expect(send(`${url}/slow`, req({ timeoutMs: 200 }))).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(2000);
    const ac = new AbortController();
    const p = send(`${url}/slow`, req({ signal: ac.signal }));
    ac.abort();
    await expect(p).rejects.toThrow();
  });
});
