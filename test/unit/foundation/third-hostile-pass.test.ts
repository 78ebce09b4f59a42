import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config.js";
import { signSign1 } from "../../../src/core/log/sign1.js";
import { checkRegistrationPolicy, eventToStatement } from "../../../src/core/scitt/index.js";
import { decodeSign1, HEADER } from "../../../src/formats/cose/index.js";
import { ExportSlots } from "../../../src/http/export-slots.js";
import { BodyTooLarge, readBounded } from "../../../src/net/bounded-body.js";
import { VCON_CREATED_EVENT } from "../../helpers/vcon-event.js";
import { deterministicSigner } from "../../helpers/vector-key.js";

// Known answers for the bounds issue 31's third hostile pass added.
const statement = (x5chain: unknown) => {
  const s = decodeSign1(
    eventToStatement(
      VCON_CREATED_EVENT,
      { issuer: "https://conserver.example", kid: "x5" },
      deterministicSigner,
    ),
  );
  const h = new Map(s.protectedHeader);
  h.set(HEADER.x5chain, x5chain as never);
  return signSign1({ protectedHeader: h, payload: s.payload as Uint8Array }, deterministicSigner);
};
const trust = { keys: new Map(), caCertificatesPem: [] };
const der = (name: string) =>
  new Uint8Array(
    Buffer.from(
      readFileSync(new URL(`../../../fixtures/pki/${name}`, import.meta.url), "utf8")
        .replace(/-----[^-]+-----/g, "")
        .replace(/\s+/g, ""),
      "base64",
    ),
  );

describe("unauthenticated CPU through x5chain: bounds before any certificate is parsed", () => {
  it("refuses 9 certificates by count, though each is junk that would fail to parse", () => {
    const verdict = checkRegistrationPolicy(
      statement(Array.from({ length: 9 }, () => new Uint8Array(10))),
      trust,
    );
    expect(verdict).toEqual({ ok: false, reason: "x5chain holds 9 certificates; at most 8 are accepted" });
  });

  it("refuses more than 64 KiB of certificates by size", () => {
    const verdict = checkRegistrationPolicy(statement([new Uint8Array(65 * 1024)]), trust);
    expect(verdict).toEqual({
      ok: false,
      reason: "x5chain holds 66560 bytes of certificates; at most 65536 are accepted",
    });
  });

  it("within the bounds, parses and judges the chain as before", () => {
    expect(checkRegistrationPolicy(statement([new Uint8Array(10)]), trust)).toMatchObject({ ok: false });
    expect(checkRegistrationPolicy(statement([der("issuer.pem")]), trust)).toEqual({
      ok: false,
      reason: "x5chain does not end at a TLS CA certificate of this tenancy",
    });
  });
});

describe("witness answers read without a limit: readBounded", () => {
  const streamOf = (chunks: number, size: number) => {
    let sent = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < chunks) c.enqueue(new Uint8Array(size));
        else c.close();
      },
      cancel() {
        cancelled = true;
      },
    });
    return { res: new Response(body), sent: () => sent, cancelled: () => cancelled };
  };

  it("reads an answer within the limit whole", async () => {
    const s = streamOf(3, 100);
    expect((await readBounded(s.res, 300, "it")).length).toBe(300);
  });

  it("cancels a stream as soon as it passes the limit", async () => {
    const s = streamOf(1_000_000, 1024);
    await expect(readBounded(s.res, 8 * 1024, "the witness's answer")).rejects.toThrow(
      new BodyTooLarge("the witness's answer is larger than 8192 bytes"),
    );
    expect(s.cancelled()).toBe(true);
    expect(s.sent()).toBeLessThan(20);
  });

  it("refuses a declared length over the limit before reading", async () => {
    const res = new Response("x".repeat(100), { headers: { "content-length": "400000000" } });
    await expect(readBounded(res, 8 * 1024, "it")).rejects.toThrow(/declared 400000000 bytes/);
  });
});

describe("evidence bundle exports: per-tenancy slots", () => {
  it("answers 429 with Retry-After when a tenancy's slots are taken, and never holds another tenancy", async () => {
    const slots = new ExportSlots(1);
    let release: () => void = () => {};
    const held = slots.run(
      "A",
      () =>
        new Promise<string>((r) => {
          release = () => r("first");
        }),
    );
    await expect(slots.run("A", async () => "second")).rejects.toMatchObject({
      kind: "rate_limited",
      headers: { "Retry-After": "2" },
    });
    expect(await slots.run("B", async () => "other tenancy")).toBe("other tenancy");
    release();
    expect(await held).toBe("first");
    expect(await slots.run("A", async () => "after")).toBe("after");
  });

  it("frees a slot when the work fails", async () => {
    const slots = new ExportSlots(1);
    await expect(slots.run("A", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await slots.run("A", async () => "again")).toBe("again");
  });
});

describe("the new settings", () => {
  it("reads ARCHIVIST_TRUSTED_PROXIES, ARCHIVIST_METRICS_TOKEN and ARCHIVIST_EXPORTS_PER_TENANCY", () => {
    const c = loadConfig(
      {},
      {
        ARCHIVIST_TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1,::1,loopback",
        ARCHIVIST_METRICS_TOKEN: "t",
        ARCHIVIST_EXPORTS_PER_TENANCY: "3",
      },
    );
    expect(c.trustedProxies).toEqual(["10.0.0.0/8", "127.0.0.1", "::1", "loopback"]);
    expect(c.metricsToken).toBe("t");
    expect(c.exportsPerTenancy).toBe(3);
    const d = loadConfig({}, {});
    expect([d.trustedProxies, d.metricsToken, d.exportsPerTenancy]).toEqual([[], undefined, 2]);
  });

  it("refuses a proxy that is not an address or a CIDR", () => {
    expect(() => loadConfig({}, { ARCHIVIST_TRUSTED_PROXIES: "proxy.example" })).toThrow(ConfigError);
  });
});
