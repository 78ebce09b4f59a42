import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanBatch } from "../../../src/workers/scanner.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { EICAR } from "../../unit/blobs/samples.js";

const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`../../../fixtures/blobs/${name}`, import.meta.url)));
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

type Blob = {
  identity: string;
  hash: { alg: string; value: string };
  mime_type: string;
  size: number;
  scanned_status: string;
  scanned_timestamp: string;
  scanned_bad_reason: string;
};

function upload(s: TestService, token: string, bytes: Uint8Array, contentType?: string): Promise<Response> {
  const form = new FormData();
  form.append("file", new Blob([bytes as BlobPart], contentType ? { type: contentType } : {}), "filename");
  return s.api("/archivist/v1/blobs", { method: "POST", token, body: form });
}

describe.each([
  ["fs", {}],
  ["postgres", { ARCHIVIST_BLOB_STORE: "postgres", ARCHIVIST_BLOB_MAX_BYTES: "200000" }],
])("blobs (%s store)", (store, env) => {
  let s: TestService;
  let ta: string;
  let tb: string;
  beforeAll(async () => {
    s = await startTestService(
      { ARCHIVIST_BLOB_MAX_BYTES: "200000", ...env },
      { blobs: 2, blob_bytes: 3000 },
    );
    ta = await s.token(s.a);
    tb = await s.token(s.b);
  });
  afterAll(() => s?.stop());

  it("uploads real files, sniffs their type, serves the same bytes with type, length, etag and ranges", async () => {
    const cases: Array<[string, string]> = [
      ["sample.png", "image/png"],
      ["sample.pdf", "application/pdf"],
      ["sample.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
      ["sample.txt", "text/plain"],
      ["sample.json", "application/json"],
    ];
    for (const [name, mime] of cases) {
      const bytes = fixture(name);
      const res = await upload(s, ta, bytes);
      expect(res.status, `${name}: ${await res.clone().text()}`).toBe(200);
      const blob = (await res.json()) as Blob;
      expect(blob.identity).toMatch(/^blobs\/[0-9a-f-]{36}$/);
      expect(blob).toMatchObject({
        hash: { alg: "SHA256", value: sha256(bytes) },
        mime_type: mime,
        size: bytes.length,
        scanned_status: "NOT_SCANNED",
        scanned_timestamp: "",
      });
      const down = await s.api(`/archivist/v1/${blob.identity}`, { token: ta });
      expect(down.status).toBe(200);
      expect(down.headers.get("content-type")).toContain(mime.split(";")[0] as string);
      expect(down.headers.get("etag")).toBe(`"${sha256(bytes)}"`);
      const got = new Uint8Array(await down.arrayBuffer());
      expect(sha256(got)).toBe(sha256(bytes));
      expect(Number(down.headers.get("content-length"))).toBe(bytes.length);
      const ranged = await s.api(`/archivist/v1/${blob.identity}`, {
        token: ta,
        headers: { range: "bytes=0-9" },
      });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get("content-range")).toBe(`bytes 0-9/${bytes.length}`);
      expect(Buffer.from(await ranged.arrayBuffer())).toEqual(Buffer.from(bytes.subarray(0, 10)));
      expect((await s.api(`/archivist/v1/${blob.identity}/info`, { token: ta })).status).toBe(200);
    }
  });

  it("serves strict only after a clean scan, and a bad blob only with allow_insecure", async () => {
    const clean = (await (await upload(s, ta, fixture("sample.txt"))).json()) as Blob;
    const bad = (await (await upload(s, ta, new TextEncoder().encode(EICAR))).json()) as Blob;
    expect((await s.api(`/archivist/v1/${clean.identity}?strict=true`, { token: ta })).status).toBe(400);
    await scanBatch(s.service.ctx);
    const info = (await (await s.api(`/archivist/v1/${bad.identity}/info`, { token: ta })).json()) as Blob;
    expect(info.scanned_status).toBe("SCANNED_BAD");
    expect(info.scanned_bad_reason.length).toBeGreaterThan(3);
    expect(info.scanned_timestamp).not.toBe("");
    expect((await s.api(`/archivist/v1/${clean.identity}?strict=true`, { token: ta })).status).toBe(200);
    expect((await s.api(`/archivist/v1/${bad.identity}`, { token: ta })).status).toBe(400);
    expect((await s.api(`/archivist/v1/${bad.identity}?allow_insecure=true`, { token: ta })).status).toBe(
      200,
    );
  });

  it("refuses non-multipart bodies, missing parts, oversize blobs and quota overruns with clear errors", async () => {
    expect(
      (await s.api("/archivist/v1/blobs", { method: "POST", token: ta, json: { file: "x" } })).status,
    ).toBe(400);
    const noFile = new FormData();
    noFile.append("other", new Blob([new Uint8Array([1])]), "x");
    expect((await s.api("/archivist/v1/blobs", { method: "POST", token: ta, body: noFile })).status).toBe(
      400,
    );
    const big = await upload(s, ta, new Uint8Array(250_000).fill(7));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ code: 3 });
    expect((await upload(s, tb, fixture("sample.txt"))).status).toBe(200);
    expect((await upload(s, tb, new Uint8Array(4000).fill(1))).status).toBe(402);
    expect((await upload(s, tb, fixture("sample.json"))).status).toBe(200);
    expect((await upload(s, tb, fixture("sample.txt"))).status).toBe(402);
  });

  it("stores equal bytes once and keeps tenancies apart", async () => {
    const bytes = fixture("sample.pdf");
    const one = (await (await upload(s, ta, bytes)).json()) as Blob;
    const two = (await (await upload(s, ta, bytes)).json()) as Blob;
    expect(one.identity).not.toBe(two.identity);
    if (store === "fs") {
      const dir = join(s.dataDir, "blobs", "sha256", sha256(bytes).slice(0, 2));
      expect(readdirSync(dir).filter((f) => f === sha256(bytes))).toHaveLength(1);
    }
    expect((await s.api(`/archivist/v1/${one.identity}`, { token: tb })).status).toBe(404);
  });
});
