import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, watch } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanBatch } from "../../../src/workers/scanner.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { EICAR } from "../../unit/core/blobs/samples.js";

const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`../../../fixtures/blobs/${name}`, import.meta.url)));
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const MAX = 200_000;

type Blob = {
  identity: string;
  hash: { alg: string; value: string };
  mime_type: string;
  size: number;
  scanned_status: string;
  scanned_timestamp: string;
  scanned_bad_reason: string;
};
type ApiError = { code: number; message: string; details: unknown[] };

function upload(s: TestService, token: string, bytes: Uint8Array): Promise<Response> {
  // As clients send it: part `file`, literal filename `filename`, no part content type.
  const form = new FormData();
  form.append("file", new Blob([bytes as BlobPart]), "filename");
  return s.api("/archivist/v1/blobs", { method: "POST", token, body: form });
}

async function uploaded(s: TestService, token: string, bytes: Uint8Array): Promise<Blob> {
  const res = await upload(s, token, bytes);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Blob;
}

/** Stored copies of blob content: files of the fs store and rows of the postgres store. */
async function stored(s: TestService): Promise<{ files: number; rows: number }> {
  const root = join(s.dataDir, "blobs", "sha256");
  const files = existsSync(root)
    ? readdirSync(root).reduce((n, dir) => n + readdirSync(join(root, dir)).length, 0)
    : 0;
  const rows = await s.service.ctx.db.query<{ n: number }>("select count(*)::int as n from blob_contents");
  return { files, rows: rows[0]?.n ?? -1 };
}

const tmpFiles = (s: TestService) => {
  const dir = join(s.dataDir, "blobs", "tmp");
  return existsSync(dir) ? readdirSync(dir) : [];
};

describe.each([
  ["fs", {}],
  ["postgres", { ARCHIVIST_BLOB_STORE: "postgres" }],
])("blobs (%s store)", (store, env) => {
  let s: TestService;
  let ta: string;
  let tb: string;
  beforeAll(async () => {
    s = await startTestService(
      { ARCHIVIST_BLOB_MAX_BYTES: String(MAX), ...env },
      { blobs: 3, blob_bytes: 3000 },
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
      const blob = await uploaded(s, ta, bytes);
      expect(blob.identity).toMatch(/^blobs\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(blob, name).toMatchObject({
        hash: { alg: "SHA256", value: sha256(bytes) },
        mime_type: mime,
        size: bytes.length,
        scanned_status: "NOT_SCANNED",
        scanned_timestamp: "",
      });
      const info = await s.api(`/archivist/v1/${blob.identity}/info`, { token: ta });
      expect(await info.json()).toEqual(blob);

      const down = await s.api(`/archivist/v1/${blob.identity}`, { token: ta });
      expect(down.status).toBe(200);
      expect(down.headers.get("content-type"), name).toBe(mime);
      expect(down.headers.get("content-length")).toBe(String(bytes.length));
      expect(down.headers.get("etag")).toBe(`"${sha256(bytes)}"`);
      expect(sha256(new Uint8Array(await down.arrayBuffer()))).toBe(sha256(bytes));

      const ranged = await s.api(`/archivist/v1/${blob.identity}`, {
        token: ta,
        headers: { range: "bytes=0-9" },
      });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get("content-range")).toBe(`bytes 0-9/${bytes.length}`);
      expect(ranged.headers.get("content-length")).toBe("10");
      expect(Buffer.from(await ranged.arrayBuffer())).toEqual(Buffer.from(bytes.subarray(0, 10)));
    }
  });

  it("serves suffix ranges and answers 416 past the end", async () => {
    const bytes = fixture("sample.pdf");
    const blob = await uploaded(s, ta, bytes);
    const tail = await s.api(`/archivist/v1/${blob.identity}`, { token: ta, headers: { range: "bytes=-7" } });
    expect(tail.status).toBe(206);
    const n = bytes.length;
    expect(tail.headers.get("content-range")).toBe(`bytes ${n - 7}-${n - 1}/${n}`);
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(Buffer.from(bytes.subarray(n - 7)));
    const past = await s.api(`/archivist/v1/${blob.identity}`, {
      token: ta,
      headers: { range: `bytes=${n}-` },
    });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${n}`);
  });

  it("serves strict only after a clean scan, and a bad blob only with allow_insecure", async () => {
    const clean = await uploaded(s, ta, fixture("sample.png"));
    const bad = await uploaded(s, ta, new TextEncoder().encode(EICAR));
    const early = await s.api(`/archivist/v1/${clean.identity}?strict=true`, { token: ta });
    expect(early.status).toBe(400);
    expect(((await early.json()) as ApiError).message).toContain("NOT_SCANNED");
    // Not yet scanned and not strict: served.
    expect((await s.api(`/archivist/v1/${bad.identity}`, { token: ta })).status).toBe(200);

    await scanBatch(s.service.ctx);
    const okInfo = (await (
      await s.api(`/archivist/v1/${clean.identity}/info`, { token: ta })
    ).json()) as Blob;
    expect(okInfo.scanned_status).toBe("SCANNED_OK");
    expect(Number.isNaN(Date.parse(okInfo.scanned_timestamp))).toBe(false);
    const badInfo = (await (await s.api(`/archivist/v1/${bad.identity}/info`, { token: ta })).json()) as Blob;
    expect(badInfo.scanned_status).toBe("SCANNED_BAD");
    expect(badInfo.scanned_bad_reason).toMatch(/EICAR/);
    expect(Number.isNaN(Date.parse(badInfo.scanned_timestamp))).toBe(false);

    const strict = await s.api(`/archivist/v1/${clean.identity}?strict=true`, { token: ta });
    expect(strict.status).toBe(200);
    expect(sha256(new Uint8Array(await strict.arrayBuffer()))).toBe(clean.hash.value);
    const refused = await s.api(`/archivist/v1/${bad.identity}`, { token: ta });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as ApiError).message).toContain("allow_insecure");
    expect((await s.api(`/archivist/v1/${bad.identity}?strict=true`, { token: ta })).status).toBe(400);
    const insecure = await s.api(`/archivist/v1/${bad.identity}?allow_insecure=true`, { token: ta });
    expect(insecure.status).toBe(200);
    expect(sha256(new Uint8Array(await insecure.arrayBuffer()))).toBe(bad.hash.value);
  });

  it("refuses bodies that are not multipart or have no file part", async () => {
    const json = await s.api("/archivist/v1/blobs", { method: "POST", token: ta, json: { file: "x" } });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ code: 3, message: expect.stringContaining("multipart") });
    const noFile = new FormData();
    noFile.append("other", new Blob([new Uint8Array([1])]), "filename");
    const res = await s.api("/archivist/v1/blobs", { method: "POST", token: ta, body: noFile });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ApiError).message).toContain("file");
  });

  it("takes a blob of exactly the maximum size and answers 413 one byte over", async () => {
    const atMax = new Uint8Array(MAX).fill(7);
    expect((await uploaded(s, ta, atMax)).size).toBe(MAX);
    const over = await upload(s, ta, new Uint8Array(MAX + 1).fill(7));
    expect(over.status).toBe(413);
    expect(over.headers.get("content-type")).toContain("application/json");
    expect(await over.json()).toEqual({
      code: 3,
      message: expect.stringContaining(String(MAX)),
      details: [],
    });
    // The partial upload is not left behind.
    await expect.poll(() => tmpFiles(s)).toEqual([]);
  });

  it("writes no temporary file for a small upload cut short, and streams a large one to disk", async () => {
    // An upload's tmp directory exists after the first one; watch it while a small file part
    // ends mid-body: it is held in memory, so nothing is created there, and nothing left.
    await uploaded(s, ta, new Uint8Array(10).fill(3));
    const dir = join(s.dataDir, "blobs", "tmp");
    const seen: string[] = [];
    const watcher = watch(dir, (_event, name) => seen.push(String(name)));
    try {
      const cut = Buffer.from(
        `--B\r\ncontent-disposition: form-data; name="file"; filename="x"\r\n\r\n${"hello".repeat(1000)}`,
      );
      const res = await s.api("/archivist/v1/blobs", {
        method: "POST",
        token: ta,
        body: cut,
        headers: { "content-type": "multipart/form-data; boundary=B" },
      });
      expect(res.status).toBe(400);
      // A file of more than 64 KiB goes to disk as it arrives (and is then moved or removed).
      const large = new Uint8Array(150_000).fill(9);
      expect((await uploaded(s, ta, large)).size).toBe(large.length);
      await expect.poll(() => seen.length).toBeGreaterThan(0);
    } finally {
      watcher.close();
    }
    // Every name the watcher saw is the large upload's: one temporary file.
    expect(new Set(seen).size).toBe(1);
    await expect.poll(() => tmpFiles(s)).toEqual([]);
  });

  it("answers 402 past the byte quota and the count quota, also for concurrent uploads", async () => {
    // Byte quota: refused while streaming, and up front when the declared length is far over.
    for (const size of [3001, 150_000]) {
      const res = await upload(s, tb, new Uint8Array(size).fill(1));
      expect(res.status, `${size} bytes`).toBe(402);
      expect(await res.json()).toMatchObject({
        code: 8,
        message: expect.stringContaining("3000 blob bytes"),
      });
    }
    await uploaded(s, tb, new Uint8Array(1000).fill(2));
    // Each race below has room for one of its two uploads; both pass the first check, store
    // their bytes, and one is refused by the re-check under the tenancy lock.
    const race = async (a: Uint8Array, b: Uint8Array) => {
      const before = await stored(s);
      const answers = await Promise.all([a, b].map((bytes) => upload(s, tb, bytes)));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 402]);
      const after = await stored(s);
      return { added: after.files + after.rows - before.files - before.rows, answers };
    };
    // The same content twice: the refused upload must not remove the bytes the other recorded.
    const same = new Uint8Array(1500).fill(3);
    const first = await race(same, same);
    expect(first.added).toBe(1);
    const won = (await first.answers.find((r) => r.status === 200)?.json()) as Blob;
    const down = await s.api(`/archivist/v1/${won.identity}`, { token: tb });
    expect(sha256(new Uint8Array(await down.arrayBuffer()))).toBe(sha256(same));
    // Different contents: the refused one's bytes do not stay in the store.
    expect((await race(new Uint8Array(400).fill(4), new Uint8Array(400).fill(5))).added).toBe(1);
    // The count is used up, so even an empty blob is refused.
    const full = await upload(s, tb, new Uint8Array(0));
    expect(full.status).toBe(402);
    expect(((await full.json()) as ApiError).message).toContain("3 blobs");
    // Tenancy A has no quota.
    await uploaded(s, ta, new Uint8Array(4000).fill(1));
  });

  it("stores equal bytes once and keeps tenancies apart", async () => {
    const bytes = new TextEncoder().encode(`stored once (${store})`);
    const hash = sha256(bytes);
    const before = await stored(s);
    const one = await uploaded(s, ta, bytes);
    const two = await uploaded(s, ta, bytes);
    expect(one.identity).not.toBe(two.identity);
    expect(two.hash.value).toBe(hash);
    const after = await stored(s);
    // One more copy in the configured store, none in the other.
    expect(after).toEqual(
      store === "fs"
        ? { files: before.files + 1, rows: before.rows }
        : { files: before.files, rows: before.rows + 1 },
    );
    if (store === "fs")
      expect(existsSync(join(s.dataDir, "blobs", "sha256", hash.slice(0, 2), hash))).toBe(true);
    for (const id of [one.identity, two.identity]) {
      const down = await s.api(`/archivist/v1/${id}`, { token: ta });
      expect(sha256(new Uint8Array(await down.arrayBuffer()))).toBe(hash);
    }
    expect((await s.api(`/archivist/v1/${one.identity}`, { token: tb })).status).toBe(404);
    expect((await s.api(`/archivist/v1/${one.identity}/info`, { token: tb })).status).toBe(404);
    expect((await s.api(`/archivist/v1/${one.identity}`)).status).toBe(401);
  });
});
