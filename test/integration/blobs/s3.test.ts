import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeS3, startFakeS3 } from "../../helpers/fake-s3.js";
import { startTestService, type TestService } from "../../helpers/service.js";

let s3: FakeS3;
let s: TestService;
let token: string;
beforeAll(async () => {
  s3 = await startFakeS3("AKIDTEST", "secret-key");
  s = await startTestService({
    ARCHIVIST_BLOB_STORE: "s3",
    ARCHIVIST_S3_ENDPOINT: s3.endpoint,
    ARCHIVIST_S3_BUCKET: "blobs",
    ARCHIVIST_S3_ACCESS_KEY_ID: "AKIDTEST",
    ARCHIVIST_S3_SECRET_ACCESS_KEY: "secret-key",
  });
  token = await s.token(s.a);
});
afterAll(async () => {
  await s?.stop();
  await s3?.close();
});

describe("S3-compatible blob store", () => {
  it("stores uploads as signed, content-addressed objects and serves them whole and in ranges", async () => {
    const bytes = new Uint8Array(
      readFileSync(new URL("../../../fixtures/blobs/sample.pdf", import.meta.url)),
    );
    const hash = createHash("sha256").update(bytes).digest("hex");
    const form = () => {
      const f = new FormData();
      f.append("file", new Blob([bytes]), "filename");
      return f;
    };
    const blob = (await (
      await s.api("/archivist/v1/blobs", { method: "POST", token, body: form() })
    ).json()) as { identity: string };
    await s.api("/archivist/v1/blobs", { method: "POST", token, body: form() });
    expect([...s3.objects.keys()]).toEqual([`/blobs/sha256/${hash}`]);
    const down = await s.api(`/archivist/v1/${blob.identity}`, { token });
    expect(
      createHash("sha256")
        .update(new Uint8Array(await down.arrayBuffer()))
        .digest("hex"),
    ).toBe(hash);
    const part = await s.api(`/archivist/v1/${blob.identity}`, { token, headers: { range: "bytes=2-5" } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(Buffer.from(bytes.subarray(2, 6)));
    expect(s3.requests).toBeGreaterThanOrEqual(4);
  });
});
