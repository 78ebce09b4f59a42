import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { BodyTooLarge, fetchSender, type HttpSend, keepAliveSender } from "../../../src/client/index.js";
import { localServerForSuite } from "../../helpers/local-server.js";

const MiB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, "a");

describe("HTTP senders", () => {
  const seen: Array<{ method?: string; url?: string; body: string; auth?: string }> = [];
  /** Bytes of the endless answer written before the client hung up. */
  let endlessWritten = 0;
  const local = localServerForSuite((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({
        method: req.method,
        url: req.url,
        body: Buffer.concat(chunks).toString(),
        auth: req.headers.authorization,
      });
      if (req.url === "/slow") return; // never answers
      if (req.url === "/declared") {
        res.writeHead(200, { "content-length": String(50 * MiB) });
        return void res.write(CHUNK);
      }
      if (req.url === "/endless") {
        // Streamed without a length until the client hangs up: never held here either.
        res.writeHead(200, { "content-type": "application/json" });
        const pump = () => {
          while (!res.destroyed) {
            endlessWritten += CHUNK.length;
            if (!res.write(CHUNK)) return void res.once("drain", pump);
          }
        };
        return pump();
      }
      if (req.url === "/trickle") {
        res.writeHead(200, { "content-type": "application/json" });
        const t = setInterval(() => res.write("a"), 20);
        res.on("close", () => clearInterval(t));
        return;
      }
      if (req.url === "/cut") {
        // A length promised, a part sent, the connection dropped.
        res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
        res.write('{"identity":"');
        return void setTimeout(() => res.socket?.destroy(), 20);
      }
      if (req.url === "/moved") {
        res.writeHead(307, { location: "/elsewhere" });
        return void res.end();
      }
      res.writeHead(req.url === "/limited" ? 429 : 200, {
        "content-type": "application/json",
        "Archivist-Rate-Limit-Reset": "2",
      });
      res.end(JSON.stringify({ ok: req.url }));
    });
  });

  const req = (o: { timeoutMs?: number; signal?: AbortSignal; body?: string } = {}) => ({
    method: (o.body ? "POST" : "GET") as "GET" | "POST",
    headers: { authorization: "Bearer t" },
    ...(o.body ? { body: o.body } : {}),
    signal: o.signal ?? new AbortController().signal,
    timeoutMs: o.timeoutMs ?? 5000,
  });
  const text = async (send: HttpSend, path: string, max = MiB) =>
    new TextDecoder().decode(await (await send(`${local.url}${path}`, req())).body(max));

  it("sends method, headers and body, and reads status, headers and body (undici)", async () => {
    const send = keepAliveSender();
    const a = await send(`${local.url}/ok`, req({ body: '{"x":1}' }));
    expect(a.status).toBe(200);
    expect(JSON.parse(new TextDecoder().decode(await a.body(MiB)))).toEqual({ ok: "/ok" });
    const b = await send(`${local.url}/limited`, req());
    expect(b.status).toBe(429);
    expect(b.headers.get("archivist-rate-limit-reset")).toBe("2");
    expect(b.headers.get("Archivist-Rate-Limit-Reset")).toBe("2");
    expect(b.headers.get("retry-after")).toBeNull();
    expect(new TextDecoder().decode(await b.body(MiB))).toContain("/limited");
    expect(seen.slice(0, 2)).toEqual([
      { method: "POST", url: "/ok", body: '{"x":1}', auth: "Bearer t" },
      { method: "GET", url: "/limited", body: "", auth: "Bearer t" },
    ]);
  });

  it("gives up after the request timeout, and on the job's abort", async () => {
    const send = keepAliveSender();
    const t0 = Date.now();
    await expect(send(`${local.url}/slow`, req({ timeoutMs: 200 }))).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(2000);
    const ac = new AbortController();
    const p = send(`${local.url}/slow`, req({ signal: ac.signal }));
    ac.abort();
    await expect(p).rejects.toThrow();
  });

  for (const [name, make] of [
    ["undici", keepAliveSender],
    ["fetch", () => fetchSender(fetch)],
  ] as const) {
    it(`${name}: refuses an answer over the reader's bound, declared or streamed, without reading it`, async () => {
      const send = make();
      await expect(text(send, "/declared", MiB)).rejects.toBeInstanceOf(BodyTooLarge);
      endlessWritten = 0;
      await expect(text(send, "/endless", MiB)).rejects.toBeInstanceOf(BodyTooLarge);
      // It hung up at the bound: the server wrote little more than what socket buffers hold.
      await new Promise((r) => setTimeout(r, 100));
      expect(endlessWritten).toBeLessThan(64 * MiB);
      expect(await text(send, "/ok")).toBe('{"ok":"/ok"}');
    });

    it(`${name}: ends a body still trickling when the request's time is up, collections or not`, async () => {
      // CI once saw fetch's read run on past its time: Node 20 let a collection take the timeout
      // signal of `AbortSignal.any`, and nothing aborted. Collections run here throughout.
      setFlagsFromString("--expose-gc");
      const gc = runInNewContext("gc") as () => void;
      const collecting = setInterval(gc, 25);
      try {
        const send = make();
        const res = await send(`${local.url}/trickle`, req({ timeoutMs: 300 }));
        expect(res.status).toBe(200);
        await expect(res.body(MiB)).rejects.toThrow();
      } finally {
        clearInterval(collecting);
      }
    }, 20_000);

    it(`${name}: fails a body cut short`, async () => {
      const res = await make()(`${local.url}/cut`, req());
      expect(res.status).toBe(200);
      await expect(res.body(MiB)).rejects.toThrow();
    });

    it(`${name}: answers a redirect as it is, and follows none`, async () => {
      const send = make();
      const before = seen.filter((r) => r.url === "/elsewhere").length;
      const res = await send(`${local.url}/moved`, req({ body: "{}" }));
      expect(res.status).toBe(307);
      expect(res.headers.get("location")).toBe("/elsewhere");
      await res.body(MiB);
      expect(seen.filter((r) => r.url === "/elsewhere")).toHaveLength(before);
    });
  }
});
