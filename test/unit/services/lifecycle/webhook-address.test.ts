import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fetch } from "undici";
import { describe, expect, it } from "vitest";
import {
  forbiddenAddress,
  refusedUrl,
  WebhookAddressRefused,
  webhookDispatcher,
} from "../../../../src/services/lifecycle/webhook-address.js";

describe("where a processor's webhook may go", () => {
  it("refuses loopback, private, link-local, metadata and reserved addresses, in every spelling", () => {
    for (const a of [
      "127.0.0.1",
      "127.1.2.3",
      "10.0.0.1",
      "172.16.5.4",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "[::1]",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "fe80::1",
      "fd00:ec2::254",
      "fc00::1",
    ])
      expect(forbiddenAddress(a), a).toBe(true);
    for (const a of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])
      expect(forbiddenAddress(a), a).toBe(false);
  });

  it("refuses such a URL as written, `localhost` included, unless the operator allows them", () => {
    for (const u of [
      "http://localhost:1/",
      "http://api.localhost/",
      "http://[::1]/",
      "http://169.254.169.254/",
    ]) {
      expect(refusedUrl(new URL(u), false), u).toBe(true);
      expect(refusedUrl(new URL(u), true), u).toBe(false);
    }
    expect(refusedUrl(new URL("https://processor.example.com/"), false)).toBe(false);
  });

  it("refuses at connect time a name that resolves to such an address (the check a URL's text cannot make)", async () => {
    const server = createServer((_req, res) => res.end("reached"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const port = (server.address() as AddressInfo).port;
      // `localhost` is a name: undici resolves it through the dispatcher's lookup.
      const url = `http://localhost:${port}/`;
      const refused = await fetch(url, { dispatcher: webhookDispatcher(false) }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect((refused as { cause?: unknown }).cause).toBeInstanceOf(WebhookAddressRefused);
      expect(webhookDispatcher(true)).toBeUndefined();
      expect(await (await fetch(url)).text()).toBe("reached");
    } finally {
      server.close();
    }
  });
});
