import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { bindHttpServer, serveWith } from "../../../src/http/listen.js";

describe("the API's socket, bound before the service is built", () => {
  const config = loadConfig({}, { PORT: "0", HOST: "127.0.0.1", ARCHIVIST_REQUEST_TIMEOUT_MS: "7000" });
  let close: (() => void) | undefined;
  afterAll(() => close?.());

  it("answers 503 while the service starts, then hands every request to the app", async () => {
    const server = await bindHttpServer(config);
    close = () => server.close();
    const { port } = server.address() as AddressInfo;
    expect(port).toBeGreaterThan(0);
    expect(server.requestTimeout).toBe(7000);
    const url = `http://127.0.0.1:${port}/archivist/v2/assets`;
    const starting = await fetch(url);
    expect(starting.status).toBe(503);
    expect(starting.headers.get("retry-after")).toBe("1");
    expect(await starting.json()).toEqual({ code: 14, message: "the service is starting", details: [] });
    // Liveness: alive and serving HTTP, so a liveness probe does not restart a slow start.
    const live = await fetch(`http://127.0.0.1:${port}/healthz?probe=1`);
    expect([live.status, await live.json()]).toEqual([200, { status: "starting" }]);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(503);
    serveWith(server, (_req, res) => res.end("app"));
    const served = await fetch(url);
    expect([served.status, await served.text()]).toEqual([200, "app"]);
  });

  it("refuses a port already taken instead of starting", async () => {
    const first = await bindHttpServer(config);
    const { port } = first.address() as AddressInfo;
    try {
      await expect(bindHttpServer(loadConfig({}, { PORT: String(port), HOST: "127.0.0.1" }))).rejects.toThrow(
        /EADDRINUSE/,
      );
    } finally {
      first.close();
    }
  });
});
