import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

/**
 * An HTTP server of `handler` on a loopback port, listening before the suite's tests and closed
 * after them, open connections too (a handler may leave a request unanswered): its URL.
 */
export function localServerForSuite(handler: RequestListener): { readonly url: string } {
  const server = createServer(handler);
  const suite = { url: "" };
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    suite.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return suite;
}
