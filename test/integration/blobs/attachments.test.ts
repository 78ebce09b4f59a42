import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../../helpers/service.js";

let s: TestService;
let ta: string;
let tb: string;
beforeAll(async () => {
  s = await startTestService();
  ta = await s.token(s.a);
  tb = await s.token(s.b);
});
afterAll(() => s?.stop());

const png = new Uint8Array(readFileSync(new URL("../../../fixtures/blobs/sample.png", import.meta.url)));
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

async function uploadPng(): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([png]), "filename");
  return (
    (await (await s.api("/archivist/v1/blobs", { method: "POST", token: ta, body: form })).json()) as {
      identity: string;
    }
  ).identity;
}

const attachment = (blob: string, hash = sha(png)) => ({
  arc_attribute_type: "arc_attachment",
  arc_blob_identity: blob,
  arc_blob_hash_alg: "SHA256",
  arc_blob_hash_value: hash,
  arc_file_name: "sample.png",
});

describe("attachments", () => {
  it("serves a blob only through a record that references it, privately and publicly", async () => {
    const blob = await uploadPng();
    const other = await uploadPng();
    const blobUuid = blob.split("/")[1];
    const priv = (await (
      await s.api("/archivist/v2/assets", {
        method: "POST",
        token: ta,
        json: { attributes: { arc_primary_image: attachment(blob) } },
      })
    ).json()) as { identity: string };
    const assetUuid = priv.identity.split("/")[1];
    const base = `/archivist/v2/attachments/assets/${assetUuid}`;
    const down = await s.api(`${base}/${blobUuid}`, { token: ta });
    expect(down.status).toBe(200);
    expect(sha(new Uint8Array(await down.arrayBuffer()))).toBe(sha(png));
    expect(
      ((await (await s.api(`${base}/${blobUuid}/info`, { token: ta })).json()) as { hash: { value: string } })
        .hash.value,
    ).toBe(sha(png));
    expect((await s.api(`${base}/${other.split("/")[1]}`, { token: ta })).status).toBe(404);
    expect((await s.api(`${base}/${blobUuid}`, { token: tb })).status).toBe(404);
    expect((await s.api(`/archivist/v2/attachments/publicassets/${assetUuid}/${blobUuid}`)).status).toBe(404);

    const ev = (await (
      await s.api(`/archivist/v2/${priv.identity}/events`, {
        method: "POST",
        token: ta,
        json: {
          operation: "Record",
          behaviour: "RecordEvidence",
          event_attributes: { arc_display_type: "evidence", recording: attachment(other) },
        },
      })
    ).json()) as { identity: string };
    const eventUuid = ev.identity.split("/")[3];
    expect((await s.api(`${base}/events/${eventUuid}/${other.split("/")[1]}`, { token: ta })).status).toBe(
      200,
    );
    expect(
      (await s.api(`${base}/events/${eventUuid}/${other.split("/")[1]}/info`, { token: ta })).status,
    ).toBe(200);
    expect((await s.api(`${base}/events/${eventUuid}/${blobUuid}`, { token: ta })).status).toBe(404);

    const pub = (await (
      await s.api("/archivist/v2/assets", {
        method: "POST",
        token: ta,
        json: { public: true, attributes: { arc_primary_image: attachment(blob) } },
      })
    ).json()) as { identity: string };
    const pubRes = await s.api(
      `/archivist/v2/attachments/publicassets/${pub.identity.split("/")[1]}/${blobUuid}`,
    );
    expect(pubRes.status).toBe(200);
    expect(
      (await s.api(`/archivist/v2/attachments/publicassets/${pub.identity.split("/")[1]}/${blobUuid}/info`))
        .status,
    ).toBe(200);
  });

  it("refuses a record whose recorded hash does not match the blob, or names a blob of no one", async () => {
    const blob = await uploadPng();
    const wrong = await s.api("/archivist/v2/assets", {
      method: "POST",
      token: ta,
      json: { attributes: { pic: attachment(blob, "00".repeat(32)) } },
    });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { message: string }).message).toContain("arc_blob_hash_value");
    const missing = await s.api("/archivist/v2/assets", {
      method: "POST",
      token: ta,
      json: { attributes: { pic: attachment("blobs/00000000-0000-4000-8000-000000000000") } },
    });
    expect(missing.status).toBe(400);
    const foreign = await s.api("/archivist/v2/assets", {
      method: "POST",
      token: tb,
      json: { attributes: { pic: attachment(blob) } },
    });
    expect(foreign.status).toBe(400);
  });
});
