import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { scanBatch } from "../../../src/workers/scanner.js";
import { forSuite, twoTenancies } from "../../helpers/service.js";
import { EICAR } from "../../unit/core/blobs/samples.js";

const suite = forSuite(() => twoTenancies());

const png = new Uint8Array(readFileSync(new URL("../../../fixtures/blobs/sample.png", import.meta.url)));
const pdf = new Uint8Array(readFileSync(new URL("../../../fixtures/blobs/sample.pdf", import.meta.url)));
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const uuid = (identity: string) => identity.split("/").pop() as string;
const ATT = "/archivist/v2/attachments";

type Blob = { identity: string; hash: { alg: string; value: string }; mime_type: string; size: number };
type Attachment = ReturnType<typeof attachment>;

async function upload(bytes: Uint8Array): Promise<Blob> {
  const form = new FormData();
  form.append("file", new Blob([bytes as BlobPart]), "filename");
  const res = await suite.s.api("/archivist/v1/blobs", { method: "POST", token: suite.ta, body: form });
  expect(res.status).toBe(200);
  return (await res.json()) as Blob;
}

function attachment(blob: Blob | string, hash?: string) {
  return {
    arc_attribute_type: "arc_attachment",
    arc_blob_identity: typeof blob === "string" ? blob : blob.identity,
    arc_blob_hash_alg: "SHA256",
    arc_blob_hash_value: hash ?? (typeof blob === "string" ? "00".repeat(32) : blob.hash.value),
    arc_file_name: "sample",
  };
}

async function createAsset(attributes: Record<string, unknown>, isPublic = false): Promise<string> {
  const res = await suite.s.api("/archivist/v2/assets", {
    method: "POST",
    token: suite.ta,
    json: { public: isPublic, attributes: { arc_display_type: "call", ...attributes } },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return uuid(((await res.json()) as { identity: string }).identity);
}

async function postEvent(
  asset: string,
  eventAttributes: Record<string, unknown>,
  assetAttributes: Record<string, Attachment | string> = {},
): Promise<string> {
  const res = await suite.s.api(`/archivist/v2/assets/${asset}/events`, {
    method: "POST",
    token: suite.ta,
    json: {
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: "evidence", ...eventAttributes },
      asset_attributes: assetAttributes,
    },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return uuid(((await res.json()) as { identity: string }).identity);
}

const status = async (path: string, token?: string) =>
  (await suite.s.api(path, token ? { token } : {})).status;

describe("attachments", () => {
  it("serves an asset attachment and its metadata only through the asset that references it", async () => {
    const blob = await upload(png);
    const other = await upload(pdf);
    const asset = await createAsset({ arc_primary_image: attachment(blob) });
    const path = `${ATT}/assets/${asset}/${uuid(blob.identity)}`;

    const down = await suite.s.api(path, { token: suite.ta });
    expect(down.status).toBe(200);
    expect(down.headers.get("content-type")).toBe("image/png");
    expect(down.headers.get("etag")).toBe(`"${sha(png)}"`);
    // What a client does: compare the downloaded hash with the one in the attribute.
    expect(sha(new Uint8Array(await down.arrayBuffer()))).toBe(attachment(blob).arc_blob_hash_value);
    const info = await suite.s.api(`${path}/info`, { token: suite.ta });
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({
      identity: blob.identity,
      hash: { alg: "SHA256", value: sha(png) },
      mime_type: "image/png",
      size: png.length,
    });
    const ranged = await suite.s.api(path, { token: suite.ta, headers: { range: "bytes=1-3" } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer())).toEqual(Buffer.from(png.subarray(1, 4)));

    // A blob of the tenancy that this asset does not reference; an asset that does not exist.
    expect(await status(`${ATT}/assets/${asset}/${uuid(other.identity)}`, suite.ta)).toBe(404);
    expect(await status(`${ATT}/assets/${asset}/${uuid(other.identity)}/info`, suite.ta)).toBe(404);
    expect(await status(`${ATT}/assets/${randomUUID()}/${uuid(blob.identity)}`, suite.ta)).toBe(404);
    // Another tenancy, no token, and the public route of a private asset.
    expect(await status(path, suite.tb)).toBe(404);
    expect(await status(`${path}/info`, suite.tb)).toBe(404);
    expect(await status(path)).toBe(401);
    expect(await status(`${ATT}/publicassets/${asset}/${uuid(blob.identity)}`)).toBe(404);
    expect(await status(`${ATT}/publicassets/${asset}/${uuid(blob.identity)}/info`)).toBe(404);
  });

  it("serves an event attachment through its event, and follows the asset's attributes as they change", async () => {
    const blob = await upload(png);
    const recording = await upload(pdf);
    const asset = await createAsset({});
    const event = await postEvent(asset, { recording: attachment(recording) });
    const path = `${ATT}/assets/${asset}/events/${event}/${uuid(recording.identity)}`;
    const down = await suite.s.api(path, { token: suite.ta });
    expect(down.status).toBe(200);
    expect(sha(new Uint8Array(await down.arrayBuffer()))).toBe(sha(pdf));
    expect(await (await suite.s.api(`${path}/info`, { token: suite.ta })).json()).toMatchObject({
      identity: recording.identity,
      mime_type: "application/pdf",
    });
    expect(await status(`${ATT}/assets/${asset}/events/${event}/${uuid(blob.identity)}`, suite.ta)).toBe(404);
    // An event attachment is not an attachment of the asset.
    expect(await status(`${ATT}/assets/${asset}/${uuid(recording.identity)}`, suite.ta)).toBe(404);
    expect(await status(path, suite.tb)).toBe(404);
    expect(await status(`${ATT}/publicassets/${asset}/events/${event}/${uuid(recording.identity)}`)).toBe(
      404,
    );

    // An attachment set on the asset by an event, then replaced by another.
    await postEvent(asset, {}, { picture: attachment(blob) });
    expect(await status(`${ATT}/assets/${asset}/${uuid(blob.identity)}`, suite.ta)).toBe(200);
    await postEvent(asset, {}, { picture: "removed" });
    expect(await status(`${ATT}/assets/${asset}/${uuid(blob.identity)}`, suite.ta)).toBe(404);
  });

  it("serves a public asset's attachments without a token", async () => {
    const blob = await upload(png);
    const recording = await upload(pdf);
    const asset = await createAsset({ arc_primary_image: attachment(blob) }, true);
    const event = await postEvent(asset, { recording: attachment(recording) });
    const down = await suite.s.api(`${ATT}/publicassets/${asset}/${uuid(blob.identity)}`);
    expect(down.status).toBe(200);
    expect(sha(new Uint8Array(await down.arrayBuffer()))).toBe(sha(png));
    expect(
      await (await suite.s.api(`${ATT}/publicassets/${asset}/${uuid(blob.identity)}/info`)).json(),
    ).toMatchObject({ identity: blob.identity, hash: { value: sha(png) } });
    const evPath = `${ATT}/publicassets/${asset}/events/${event}/${uuid(recording.identity)}`;
    const evDown = await suite.s.api(evPath);
    expect(evDown.status).toBe(200);
    expect(sha(new Uint8Array(await evDown.arrayBuffer()))).toBe(sha(pdf));
    expect(await status(`${evPath}/info`)).toBe(200);
    expect(await status(`${ATT}/publicassets/${asset}/${uuid(recording.identity)}`)).toBe(404);
  });

  it("matches the blob identity whatever the case of its uuid", async () => {
    const blob = await upload(png);
    const upper = `blobs/${uuid(blob.identity).toUpperCase()}`;
    const asset = await createAsset({ pic: attachment(upper, sha(png)) });
    expect(await status(`${ATT}/assets/${asset}/${uuid(blob.identity)}`, suite.ta)).toBe(200);
  });

  it("refuses a bad attachment unless allow_insecure=true, and strict before scanning", async () => {
    const bad = await upload(new TextEncoder().encode(EICAR));
    const asset = await createAsset({ payload: attachment(bad) });
    const path = `${ATT}/assets/${asset}/${uuid(bad.identity)}`;
    expect(await status(`${path}?strict=true`, suite.ta)).toBe(400);
    await scanBatch(suite.s.service.ctx);
    expect(await status(path, suite.ta)).toBe(400);
    expect(await status(`${path}?allow_insecure=true`, suite.ta)).toBe(200);
    expect(await (await suite.s.api(`${path}/info`, { token: suite.ta })).json()).toMatchObject({
      scanned_status: "SCANNED_BAD",
    });
  });

  it("refuses a record whose recorded hash does not match the blob, or names no blob of the tenancy", async () => {
    const blob = await upload(png);
    const create = (token: string, pic: Attachment) =>
      suite.s.api("/archivist/v2/assets", { method: "POST", token, json: { attributes: { pic } } });
    const wrong = await create(suite.ta, attachment(blob, sha(pdf)));
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { message: string }).message).toContain("arc_blob_hash_value");
    const missing = await create(suite.ta, attachment(`blobs/${randomUUID()}`, sha(png)));
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toContain("arc_blob_identity");
    expect((await create(suite.tb, attachment(blob))).status).toBe(400);
    // The same checks on an event.
    const asset = await createAsset({});
    const ev = await suite.s.api(`/archivist/v2/assets/${asset}/events`, {
      method: "POST",
      token: suite.ta,
      json: {
        operation: "Record",
        behaviour: "RecordEvidence",
        event_attributes: { arc_display_type: "evidence", pic: attachment(blob, sha(pdf)) },
      },
    });
    expect(ev.status).toBe(400);
  });
});
