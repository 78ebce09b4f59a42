import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ed25519PublicKey, formatVkey } from "../../../src/core/log/note-sign.js";
import { signSign1 } from "../../../src/core/log/sign1.js";
import { decodeCbor } from "../../../src/formats/cbor/index.js";
import { decodeSign1, HEADER } from "../../../src/formats/cose/index.js";
import { COSIGNATURE_V1 } from "../../../src/formats/tlog/index.js";
import { startWitness } from "../../../src/witness/server.js";
import { WitnessState } from "../../../src/witness/state.js";
import { until } from "../../helpers/poll.js";
import { cose, entryOf, statementOf, trustVectorKey } from "../../helpers/scitt-requests.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { deterministicSigner } from "../../helpers/vector-key.js";

// Regression tests for each finding of issue 31's third hostile pass over the service.
let s: TestService;
let tokenA: string;
let tokenB: string;
let tenantA: string;
let tenantB: string;
const METRICS_TOKEN = "metrics-secret-for-the-test";

beforeAll(async () => {
  // The test reaches the service from 127.0.0.1: named as the trusted proxy, its
  // X-Forwarded-For stands for the client's address.
  s = await startTestService({
    ARCHIVIST_TRUSTED_PROXIES: "127.0.0.1,::1",
    ARCHIVIST_METRICS_TOKEN: METRICS_TOKEN,
    ARCHIVIST_SCRAPI_WAIT_MS: "0",
  });
  tokenA = await s.token(s.a);
  tokenB = await s.token(s.b);
  const issuerOf = async (token: string) =>
    ((await (await s.api("/archivist/v1/scitt/keys", { token })).json()) as { issuer: string }).issuer.split(
      "/tenant/",
    )[1] as string;
  tenantA = await issuerOf(tokenA);
  tenantB = await issuerOf(tokenB);
  for (const token of [tokenA, tokenB]) {
    await trustVectorKey(s, token);
  }
  // A's log is open to registration by signature; B's stays closed.
  const open = await s.api("/archivist/v1/scitt/registration-policy", {
    method: "PUT",
    token: tokenA,
    json: { open: true, requests_per_second: 1000 },
  });
  expect(open.status).toBe(200);
}, 120_000);
afterAll(() => s?.stop());

describe("unauthenticated CPU through x5chain", () => {
  it("refuses an x5chain past its bounds by its size, before parsing a certificate", async () => {
    // 2,800 "certificates" of junk: had any been parsed, the refusal would say it cannot be read.
    const base = statementOf(1);
    const s1 = decodeSign1(base);
    const h = new Map(s1.protectedHeader);
    h.set(
      HEADER.x5chain,
      Array.from({ length: 2800 }, () => new Uint8Array(370).fill(0x30)),
    );
    const flood = signSign1({ protectedHeader: h, payload: s1.payload as Uint8Array }, deterministicSigner);
    expect(flood.length).toBeGreaterThan(1_000_000);
    const res = await s.api(`/tenants/${tenantA}/entries`, cose(flood));
    expect(res.status).toBe(400);
    const problem = decodeCbor(new Uint8Array(await res.arrayBuffer())) as Map<number, string>;
    expect(problem.get(-2)).toMatch(/x5chain holds 2800 certificates; at most 8 are accepted/);
    // Few but large: bounded by bytes too.
    h.set(HEADER.x5chain, [new Uint8Array(70_000).fill(0x30)]);
    const big = signSign1({ protectedHeader: h, payload: s1.payload as Uint8Array }, deterministicSigner);
    const res2 = await s.api(`/tenants/${tenantA}/entries`, cose(big));
    const problem2 = decodeCbor(new Uint8Array(await res2.arrayBuffer())) as Map<number, string>;
    expect(problem2.get(-2)).toMatch(/x5chain holds 70000 bytes of certificates; at most 65536/);
  });
});

describe("stored XSS at the service's origin", () => {
  const XHTML = `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><script>fetch("/x")</script></html>`;

  async function upload(body: string, type: string): Promise<string> {
    const form = new FormData();
    form.append("file", new Blob([body], { type }), "page.xhtml");
    const res = await s.api("/archivist/v1/blobs", { method: "POST", token: tokenA, body: form });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { identity: string }).identity;
  }

  it("serves every blob and attachment download, public or private, as an attachment, nosniff, sandboxed", async () => {
    const blob = await upload(XHTML, "application/xml");
    const blobUuid = blob.split("/").pop() as string;
    const attach = {
      arc_attribute_type: "arc_attachment",
      arc_blob_identity: blob,
      arc_blob_hash_alg: "SHA256",
      arc_blob_hash_value: (
        (await (await s.api(`/archivist/v1/${blob}/info`, { token: tokenA })).json()) as {
          hash: { value: string };
        }
      ).hash.value,
      arc_file_name: "page.xhtml",
    };
    const paths: Array<[string, string | undefined]> = [[`/archivist/v1/${blob}`, tokenA]];
    for (const isPublic of [true, false]) {
      const res = await s.api("/archivist/v2/assets", {
        method: "POST",
        token: tokenA,
        json: { public: isPublic, attributes: { arc_display_type: "call", page: attach } },
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const asset = ((await res.json()) as { identity: string }).identity.split("/").pop();
      paths.push(
        isPublic
          ? [`/archivist/v2/attachments/publicassets/${asset}/${blobUuid}`, undefined]
          : [`/archivist/v2/attachments/assets/${asset}/${blobUuid}`, tokenA],
      );
    }
    for (const [path, token] of paths) {
      const res = await s.api(path, token ? { token } : {});
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-disposition"), path).toMatch(/^attachment/);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("content-security-policy"), path).toMatch(/(^|; )sandbox(;|$)/);
      expect(res.headers.get("content-security-policy"), path).toContain("default-src 'none'");
      expect(await res.text()).toBe(XHTML);
      // A range of it, and a range it cannot satisfy, carry the same headers.
      for (const range of ["bytes=0-9", "bytes=999999-"]) {
        const part = await s.api(path, { ...(token ? { token } : {}), headers: { range } });
        expect(part.headers.get("content-security-policy"), `${path} ${range}`).toMatch(/sandbox/);
        expect(part.headers.get("content-disposition"), `${path} ${range}`).toMatch(/^attachment/);
      }
    }
  });
});

describe("witness answers read without a limit", () => {
  let flood: Server;
  let written = 0;
  let requests = 0;
  let closed = false;

  it("cuts a witness's answer past its limit and keeps answering", async () => {
    flood = createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(200, { "content-type": "text/plain" });
      const line = Buffer.alloc(64 * 1024, "a");
      const more = () => {
        while (!closed && res.write(line)) written += line.length;
        if (!closed) written += line.length;
      };
      res.on("drain", more);
      res.on("close", () => {
        closed = true;
      });
      more();
    });
    await new Promise<void>((r) => flood.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(flood.address() as AddressInfo).port}`;
    const vkey = formatVkey("flood.example/w", COSIGNATURE_V1, ed25519PublicKey(new Uint8Array(32).fill(7)));
    const w = await startTestService({ ARCHIVIST_WITNESSES: `${vkey} ${url}` });
    try {
      const token = await w.token(w.a);
      await w.api("/archivist/v2/assets", {
        method: "POST",
        token,
        json: { attributes: { arc_display_type: "w" } },
      });
      await w.service.workers.flush();
      await until(async () => (requests > 0 && closed ? true : undefined), 30_000);
      // Only what the sockets' buffers took before the reader gave up: nothing like the flood's
      // endless answer (the finding: 400 MB read whole into memory).
      expect(written).toBeLessThan(64 * 1024 * 1024);
      expect((await w.api("/archivist/v1/archivistnode", { token })).status).toBe(200);
    } finally {
      await w.stop();
      await new Promise((r) => flood.close(r));
    }
  }, 90_000);
});

describe("a client id can be locked out by anyone", () => {
  const tokenRequest = (clientId: string, secret: string, from: string) =>
    s.api("/archivist/iam/v1/appidp/token", {
      method: "POST",
      headers: { "x-forwarded-for": from },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: clientId,
        client_secret: secret,
      }),
    });

  it("limits wrong secrets by address: another address's owner still signs in", async () => {
    const attacker = "203.0.113.7";
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await tokenRequest(s.b.clientId, "wrong", attacker)).status);
    expect(statuses.slice(0, 30).every((c) => c === 401)).toBe(true);
    expect(statuses[30]).toBe(429);
    // The attacker's address is held off, even with the right secret ...
    expect((await tokenRequest(s.b.clientId, s.b.clientSecret, attacker)).status).toBe(429);
    // ... and the owner, from its own address, is not.
    expect((await tokenRequest(s.b.clientId, s.b.clientSecret, "198.51.100.9")).status).toBe(200);
  });

  it("refuses an unknown id and a known id's wrong secret alike", async () => {
    const unknown = await tokenRequest(crypto.randomUUID(), "wrong", "198.51.100.10");
    const known = await tokenRequest(s.a.clientId, "wrong", "198.51.100.10");
    expect(unknown.status).toBe(401);
    expect(known.status).toBe(401);
    expect(await unknown.json()).toEqual(await known.json());
  });
});

describe("tenant in the entry's path", () => {
  it("GET /tenants/<B>/entries/<an entry of A> is not found; A's own path serves it", async () => {
    const reg = await s.api(`/tenants/${tenantA}/entries`, cose(statementOf(2)));
    expect([201, 202]).toContain(reg.status);
    const entry = entryOf(reg);
    const own = await until(async () => {
      const r = await s.api(`/tenants/${tenantA}/entries/${entry}`, { redirect: "manual" });
      return r.status === 200 ? r : undefined;
    });
    expect(own.status).toBe(200);
    for (const path of [
      `/tenants/${tenantB}/entries/${entry}`,
      `/tenants/${tenantB}/entries/${entry}/statement`,
    ]) {
      // B's log is closed: without a token it answers 401 for any id, one of its own or not
      // (issue 55: an entry's existence is not told); with B's token, not found.
      expect((await s.api(path)).status, path).toBe(401);
      expect((await s.api(path, { token: tokenB })).status, path).toBe(404);
    }
    // The service's root serves every log's entries to whoever may read them.
    expect((await s.api(`/entries/${entry}`)).status).toBe(200);
  });
});

describe("statements registered with a token in a private tenancy", () => {
  it("are that tenancy's: 401 without a token, 404 to another tenancy, served with the owner's token", async () => {
    const reg = await s.api(`/tenants/${tenantB}/entries`, cose(statementOf(3), tokenB));
    expect([201, 202]).toContain(reg.status);
    const entry = entryOf(reg);
    await until(async () => {
      const r = await s.api(`/entries/${entry}`, { token: tokenB, redirect: "manual" });
      return r.status === 200 ? true : undefined;
    });
    for (const path of [
      `/entries/${entry}`,
      `/entries/${entry}/statement`,
      `/tenants/${tenantB}/entries/${entry}`,
      `/archivist/v1/publicscitt/entries/${entry}`,
      `/archivist/v1/publicscitt/entries/${entry}/receipt`,
      `/archivist/v1/publicscitt/operations/${entry}`,
      `/archivist/v1/receipts/events/${entry.replace("events_", "")}`,
    ]) {
      expect((await s.api(path)).status, path).toBe(401);
      expect((await s.api(path, { token: tokenA })).status, path).toBe(404);
      expect((await s.api(path, { token: tokenB })).status, path).toBe(200);
    }
  });

  it("are public in an open log", async () => {
    const reg = await s.api(`/tenants/${tenantA}/entries`, cose(statementOf(4), tokenA));
    const entry = entryOf(reg);
    const r = await until(async () => {
      const x = await s.api(`/entries/${entry}/statement`);
      return x.status === 200 ? x : undefined;
    });
    expect(r.headers.get("content-type")).toContain("cose");
  });
});

describe("nosniff on every answer", () => {
  it("API answers, errors, receipts, tiles and pages all carry nosniff", async () => {
    const paths: Array<[string, string | undefined]> = [
      ["/archivist/v2/assets", tokenA],
      ["/archivist/v2/assets", undefined],
      ["/archivist/v2/assets/not-a-uuid", tokenA],
      ["/no/such/route", undefined],
      ["/healthz", undefined],
      ["/.well-known/transparency-configuration", undefined],
      [`/archivist/v1/merklelogs/${tenantA}/tlog/checkpoint`, undefined],
      ["/verify", undefined],
    ];
    for (const [path, token] of paths) {
      const res = await s.api(path, token ? { token } : {});
      expect(res.headers.get("x-content-type-options"), `${path} (${res.status})`).toBe("nosniff");
      await res.arrayBuffer();
    }
    // API answers are sandboxed; a page of ours (the 404 page a browser gets) keeps its own policy.
    const api = await s.api("/archivist/v2/assets", { token: tokenA });
    expect(api.headers.get("content-security-policy")).toMatch(/^sandbox; default-src 'none'/);
    const page = await s.api("/no/such/page", { headers: { accept: "text/html" } });
    expect(page.status).toBe(404);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("content-security-policy")).toContain("style-src 'self'");
  });
});

describe("archivist witness past 64 KiB", () => {
  it("answers 413, read by the client, instead of resetting the connection", async () => {
    const dir = mkdtempSync(join(tmpdir(), "witness-413-"));
    const w = await startWitness(
      { name: "w413.example/w", state: new WitnessState(dir), logs: [], log: pino({ level: "silent" }) },
      { host: "127.0.0.1", port: 0 },
    );
    try {
      for (const size of [65 * 1024, 4 * 1024 * 1024]) {
        const res = await fetch(`${w.url}/add-checkpoint`, { method: "POST", body: "x".repeat(size) });
        expect(res.status, String(size)).toBe(413);
        expect(await res.text()).toMatch(/too large/);
      }
      // Still answering.
      expect((await fetch(`${w.url}/add-checkpoint`, { method: "POST", body: "old 0\n\n" })).status).not.toBe(
        413,
      );
    } finally {
      await w.close();
    }
  });
});

describe("/metrics", () => {
  it("needs ARCHIVIST_METRICS_TOKEN's bearer token", async () => {
    expect((await s.api("/metrics")).status).toBe(401);
    expect((await s.api("/metrics", { token: tokenA })).status).toBe(401);
    const ok = await s.api("/metrics", { token: METRICS_TOKEN });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("archivist_http_requests_total");
  });

  it("counts each route's requests when they are served (not only the metric's name)", async () => {
    const sample =
      /archivist_http_requests_total\{method="GET",route="\/archivist\/iam\/v1\/applications",status="200"\} (\d+)/;
    const count = async () =>
      Number(sample.exec(await (await s.api("/metrics", { token: METRICS_TOKEN })).text())?.[1] ?? 0);
    const before = await count();
    for (let i = 0; i < 3; i++)
      expect((await s.api("/archivist/iam/v1/applications", { token: tokenA })).status).toBe(200);
    expect(await count()).toBe(before + 3);
  });
});
