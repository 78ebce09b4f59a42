import { connect } from "node:net";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { serviceForSuite } from "../../helpers/service.js";

const suite = serviceForSuite();

function tokenForm(): string {
  const { a } = suite.s;
  return `grant_type=client_credentials&client_id=${a.clientId}&client_secret=${a.clientSecret}`;
}

/** Sends raw bytes and reads the whole answer (the server closes after a refused request). */
function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let answer = "";
    socket.on("data", (d) => {
      answer += d.toString("latin1");
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

describe("HTTP edge", () => {
  it("takes a gzip-compressed body as the bytes it inflates to", async () => {
    const res = await suite.s.api("/archivist/iam/v1/appidp/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "content-encoding": "gzip" },
      body: gzipSync(tokenForm()),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { access_token: string }).access_token).toMatch(/^ey/);
  });

  it("refuses bytes that do not inflate and encodings it does not know, with the API's error body", async () => {
    const corrupt = await suite.s.api("/archivist/iam/v1/appidp/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "content-encoding": "gzip" },
      body: tokenForm(),
    });
    expect(corrupt.status).toBe(400);
    expect(await corrupt.json()).toMatchObject({ code: 3, details: [] });
    const unknown = await suite.s.api("/archivist/iam/v1/appidp/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "content-encoding": "compress" },
      body: tokenForm(),
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { message: string }).message).toMatch(/content-encoding compress/);
    // Names an object literal would find on Object.prototype are unknown encodings too (they were 500s).
    for (const encoding of ["constructor", "__proto__"]) {
      const res = await suite.s.api("/archivist/iam/v1/appidp/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "content-encoding": encoding },
        body: tokenForm(),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(`content-encoding ${encoding}`);
    }
  });

  it("limits a compressed body by what it inflates to (413), not by its size on the wire", async () => {
    const bomb = gzipSync(Buffer.from(`{"pad":"${"a".repeat(11 * 1024 * 1024)}"}`));
    expect(bomb.length).toBeLessThan(100_000);
    const res = await suite.s.api("/archivist/v1/events", {
      method: "POST",
      token: suite.token,
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: bomb,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 3, message: "request body is too large" });
  });

  it("answers a request the HTTP parser refuses with the API's error body and closes", async () => {
    const answer = await rawExchange(suite.s.url, "GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toEqual({
      code: 3,
      message: "request is malformed",
      details: [],
    });
  });

  it("answers an expectation other than 100-continue 417 with the API's error body and closes", async () => {
    // Node answered these itself: 417 with an empty body and none of the API's headers.
    const answer = await rawExchange(
      suite.s.url,
      "POST /archivist/v2/assets HTTP/1.1\r\nHost: x\r\nExpect: nonsense\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    );
    expect(answer).toMatch(/^HTTP\/1\.1 417 /);
    expect(answer).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toEqual({
      code: 3,
      message: 'expectation "nonsense" is not supported (only 100-continue)',
      details: [],
    });
  });

  it("answers CONNECT with the API's error body and closes, not by dropping the connection", async () => {
    const { host } = new URL(suite.s.url);
    for (const target of [host, "/healthz"]) {
      const answer = await rawExchange(suite.s.url, `CONNECT ${target} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toEqual({
        code: 3,
        message: "CONNECT is not served here: this is no proxy",
        details: [],
      });
    }
  });

  it("tells no cache to keep an answer to a caller with a token; public answers keep their own rules", async () => {
    const { s, token } = suite;
    const read = await s.api("/archivist/iam/v1/applications", { token });
    expect(read.headers.get("cache-control")).toBe("no-store");
    const refused = await s.api("/archivist/v2/assets/00000000-0000-4000-8000-000000000000", { token });
    expect(refused.status).toBe(404);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect((await s.api("/healthz")).headers.get("cache-control")).toBeNull();
  });

  it("finds a route through a trailing or doubled slash, and answers HEAD like GET without a body", async () => {
    const { s, token } = suite;
    expect((await s.api("/archivist/iam/v1/applications/", { token })).status).toBe(200);
    expect((await s.api("/archivist//iam/v1/applications", { token })).status).toBe(200);
    const head = await s.api("/archivist/iam/v1/applications", { token, method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });
});
