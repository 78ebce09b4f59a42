import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, fetch } from "undici";
import { describe, expect, it } from "vitest";
import {
  embeddedIPv4,
  forbiddenAddress,
  guardedLookup,
  ipv6Bytes,
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

  it("reads an IPv6 address in each of its spellings into its 16 bytes", () => {
    const hex = (a: string) => Buffer.from(ipv6Bytes(a) ?? []).toString("hex");
    expect(hex("::")).toBe("00".repeat(16));
    expect(hex("::1")).toBe(`${"00".repeat(15)}01`);
    expect(hex("1::")).toBe(`0001${"00".repeat(14)}`);
    expect(hex("::127.0.0.1")).toBe(`${"00".repeat(12)}7f000001`);
    expect(hex("[::7f00:1]")).toBe(`${"00".repeat(12)}7f000001`);
    expect(hex("0:0:0:0:0:ffff:127.0.0.1")).toBe(`${"00".repeat(10)}ffff7f000001`);
    expect(hex("64:ff9b::192.0.2.33")).toBe("0064ff9b0000000000000000c0000221");
    expect(hex("2001:db8:1:2:3:4:5:6")).toBe("20010db8000100020003000400050006");
    expect(hex("fe80::1%eth0")).toBe(`fe80${"00".repeat(13)}01`);
    expect(ipv6Bytes("127.0.0.1")).toBeUndefined();
    expect(ipv6Bytes("processor.example.com")).toBeUndefined();
    expect(ipv6Bytes("1::2::3")).toBeUndefined();
  });

  it("finds the IPv4 address each IPv6 form embeds (RFC 4291, 2765, 6052, 3056, 4380 examples)", () => {
    const v4 = (a: string) => embeddedIPv4(ipv6Bytes(a) as Uint8Array);
    expect(v4("::ffff:192.0.2.1")).toBe("192.0.2.1"); // IPv4-mapped
    expect(v4("::ffff:0:192.0.2.1")).toBe("192.0.2.1"); // IPv4-translated
    expect(v4("::192.0.2.1")).toBe("192.0.2.1"); // IPv4-compatible
    expect(v4("64:ff9b::c000:221")).toBe("192.0.2.33"); // NAT64, RFC 6052 §2.4
    expect(v4("2002:c000:0204::1")).toBe("192.0.2.4"); // 6to4, RFC 3056 §2
    expect(v4("2001:0000:4136:e378:8000:63bf:3fff:fdd2")).toBe("192.0.2.45"); // Teredo, RFC 4380 §4
    expect(v4("2001:db8::1")).toBeUndefined(); // 2001:db8::/32 is not Teredo's 2001::/32
    expect(v4("64:ff9b:0:1::c000:221")).toBeUndefined();
    expect(v4("2606:4700::1111")).toBeUndefined();
  });

  it("refuses an IPv6 address that embeds a refused IPv4 address, in each form, and a private NAT64's prefix", () => {
    for (const a of [
      "::127.0.0.1", // IPv4-compatible
      "::7f00:1",
      "[::127.0.0.1]",
      "::a9fe:a9fe",
      "::10.0.0.1",
      "::ffff:0:127.0.0.1", // IPv4-translated
      "::ffff:0:a00:1",
      "64:ff9b::127.0.0.1", // NAT64
      "64:ff9b::7f00:1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b::c0a8:101",
      "64:ff9b:1::1", // local-use NAT64, whatever it embeds
      "64:ff9b:1:ffff::808:808",
      "2002:7f00:1::1", // 6to4
      "2002:a9fe:a9fe::",
      "2002:c0a8:101:5::1",
      "2002:a00:1::1",
      "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo: client 127.0.0.1
      "2001::f5ff:fffe", // client 10.0.0.1
      "2001:0:4136:e378:8000:63bf:5601:5601", // client 169.254.169.254
    ])
      expect(forbiddenAddress(a), a).toBe(true);
    for (const a of [
      "::8.8.8.8",
      "::ffff:0:8.8.8.8",
      "64:ff9b::8.8.8.8",
      "64:ff9b::5db8:d822",
      "2002:808:808::1",
      "2001:0000:4136:e378:8000:63bf:3fff:fdd2", // client 192.0.2.45
      "2001:0:4136:e378:8000:63bf:f7f7:f7f7", // client 8.8.8.8
      "2001:db8::7f00:1",
    ])
      expect(forbiddenAddress(a), a).toBe(false);
  });

  it("refuses at registration a URL that writes such an address, and at connect time a name that resolves to one", async () => {
    for (const u of [
      "http://[::127.0.0.1]:8080/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:0:127.0.0.1]/",
      "http://[64:ff9b::169.254.169.254]/latest/meta-data/",
      "http://[64:ff9b:1::1]/",
      "http://[2002:7f00:1::1]/",
      "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
    ]) {
      expect(refusedUrl(new URL(u), false), u).toBe(true);
      expect(refusedUrl(new URL(u), true), u).toBe(false);
    }
    expect(refusedUrl(new URL("http://[64:ff9b::8.8.8.8]/"), false)).toBe(false);
    // At connect time: the name resolves (here, to answers of the test's) and each address is judged.
    const resolvesTo =
      (address: string) =>
      (_h: string, _o: unknown, cb: (e: null, a: Array<{ address: string; family: number }>) => void) =>
        cb(null, [
          { address: "2606:4700::1111", family: 6 },
          { address, family: 6 },
        ]);
    for (const address of ["64:ff9b::7f00:1", "2002:a9fe:a9fe::1", "::ffff:10.0.0.1", "2001::80ff:fffe"]) {
      const refused = await fetch("http://processor.test/", {
        dispatcher: new Agent({ connect: { lookup: guardedLookup(resolvesTo(address)) } }),
      }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect((refused as { cause?: unknown }).cause, address).toBeInstanceOf(WebhookAddressRefused);
    }
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
