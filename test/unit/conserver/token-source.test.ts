import { describe, expect, it } from "vitest";
import {
  PermanentDeliveryError,
  TransientDeliveryError,
} from "../../../plugins/conserver/delivery/errors.js";
import { TokenSource, tokenUrl } from "../../../plugins/conserver/delivery/token-source.js";
import { rateLimitWaitMs, requestToken } from "../../../src/client/index.js";
import { FakeArchivist } from "./fake-archivist.js";

const backend = { url: "http://fake/", clientId: "client-1", clientSecret: "secret-1" };

describe("client-credentials tokens", () => {
  it("caches a token until a minute before it expires, and shares one fetch", async () => {
    const fake = new FakeArchivist();
    let now = 0;
    const tokens = new TokenSource(backend, fake.fetch, 60_000, () => now);
    const [a, b] = await Promise.all([tokens.get(), tokens.get()]);
    expect(a).toBe(b);
    now = 3_539_000;
    expect(await tokens.get()).toBe(a);
    now = 3_541_000;
    expect(await tokens.get()).not.toBe(a);
    expect(fake.count("token")).toBe(2);
  });

  it("refreshes short-lived tokens half-way and after invalidate", async () => {
    const fake = new FakeArchivist();
    fake.tokenTtlS = 30;
    let now = 0;
    const tokens = new TokenSource(backend, fake.fetch, 60_000, () => now);
    const a = await tokens.get();
    now = 14_000;
    expect(await tokens.get()).toBe(a);
    tokens.invalidate("someone else's");
    expect(await tokens.get()).toBe(a);
    tokens.invalidate(a);
    expect(await tokens.get()).not.toBe(a);
    now = 30_000;
    await tokens.get();
    expect(fake.count("token")).toBe(3);
  });

  it("classifies token endpoint failures", async () => {
    const fake = new FakeArchivist();
    const bad = new TokenSource({ ...backend, clientSecret: "wrong" }, fake.fetch);
    await expect(bad.get()).rejects.toBeInstanceOf(PermanentDeliveryError);
    fake.fault("token", { status: 503 });
    await expect(new TokenSource(backend, fake.fetch).get()).rejects.toBeInstanceOf(TransientDeliveryError);
    fake.fault("token", { status: 200, body: { nothing: true } });
    await expect(new TokenSource(backend, fake.fetch).get()).rejects.toBeInstanceOf(TransientDeliveryError);
    const offline = new TokenSource(backend, async () => Promise.reject(new TypeError("fetch failed")));
    await expect(offline.get()).rejects.toBeInstanceOf(TransientDeliveryError);
  });

  it("uses the archivist token path unless told otherwise", () => {
    expect(tokenUrl(backend)).toBe("http://fake/archivist/iam/v1/appidp/token");
    expect(tokenUrl({ ...backend, tokenUrl: "https://idp/token" })).toBe("https://idp/token");
  });
});

describe("rate-limit headers", () => {
  it("reads Archivist-Rate-Limit-Reset seconds, then Retry-After", () => {
    expect(rateLimitWaitMs(new Headers({ "Archivist-Rate-Limit-Reset": "2.5", "Retry-After": "9" }))).toBe(
      2500,
    );
    expect(rateLimitWaitMs(new Headers({ "Retry-After": "3" }))).toBe(3000);
    expect(rateLimitWaitMs(new Headers({ "Archivist-Rate-Limit-Reset": "soon" }))).toBeUndefined();
    expect(rateLimitWaitMs(new Headers({ "Archivist-Rate-Limit-Reset": "-4" }))).toBe(0);
    expect(rateLimitWaitMs(new Headers())).toBeUndefined();
  });
});

describe("token endpoint answers", () => {
  const credentials = { url: "http://idp", clientId: "c", clientSecret: "s" };
  it("reads no more of an answer than a token needs, and follows no redirect", async () => {
    let pulled = 0;
    const endless = () =>
      new ReadableStream<Uint8Array>({
        pull(c) {
          pulled += 1;
          c.enqueue(new Uint8Array(64 * 1024).fill(97));
        },
      });
    await expect(
      requestToken(credentials, { fetch: async () => new Response(endless(), { status: 200 }) }),
    ).rejects.toThrow(/could not be read/);
    expect(pulled).toBeLessThan(10);
    const asked: RequestInit[] = [];
    const moved = async (_: unknown, init?: RequestInit) => {
      asked.push(init ?? {});
      return new Response(null, { status: 307, headers: { location: "http://elsewhere/token" } });
    };
    await expect(requestToken(credentials, { fetch: moved as typeof fetch })).rejects.toThrow(
      /307 \(redirects are not followed\)/,
    );
    expect(asked[0]?.redirect).toBe("manual");
  });
});
