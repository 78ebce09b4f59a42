import { describe, expect, it } from "vitest";
import { serviceForSuite } from "../../helpers/service.js";
import { newAsset, vconEvent } from "../../helpers/vcon-event.js";

const suite = serviceForSuite();
const uuidOf = (identity: string) => identity.split("/").pop() as string;

async function upload(bytes: Uint8Array): Promise<{ identity: string; hash: { value: string } }> {
  const form = new FormData();
  form.append("file", new Blob([bytes as BlobPart]), "recording.wav");
  const res = await suite.s.api("/archivist/v1/blobs", { method: "POST", token: suite.token, body: form });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { identity: string; hash: { value: string } };
}

async function post(asset: string, body: unknown): Promise<string> {
  const res = await suite.s.api(`/archivist/v2/${asset}/events`, {
    method: "POST",
    token: suite.token,
    json: body,
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { identity: string }).identity;
}

const erase = (vcon: string) =>
  suite.s.api("/archivist/v1/erasures", {
    method: "POST",
    token: suite.token,
    json: { vcon: `vcon://${vcon}`, basis: "GDPR Art. 17" },
  });

describe("erasing a vCon", () => {
  it("erases the blobs its records attach: the bytes are no longer served, directly or as an attachment", async () => {
    const vcon = crypto.randomUUID();
    const asset = await newAsset(suite.s, suite.token);
    const blob = await upload(new Uint8Array(4096).map((_, i) => (i * 31) & 255));
    const e = vconEvent(vcon, "vcon_created", "2026-01-01");
    const record = await post(asset, {
      ...e,
      event_attributes: {
        ...e.event_attributes,
        recording: {
          arc_attribute_type: "arc_attachment",
          arc_blob_identity: blob.identity,
          arc_blob_hash_alg: "SHA256",
          arc_blob_hash_value: blob.hash.value,
          arc_file_name: "recording.wav",
        },
      },
    });
    const attachment = `/archivist/v2/attachments/${asset}/events/${uuidOf(record)}/${uuidOf(blob.identity)}`;
    expect((await suite.s.api(`/archivist/v1/${blob.identity}`, { token: suite.token })).status).toBe(200);
    const res = await erase(vcon);
    expect(res.status, await res.clone().text()).toBe(200);
    const answer = (await res.json()) as { erased: unknown[]; erased_blobs: string[]; erasures: string[] };
    expect(answer.erased_blobs).toEqual([blob.identity]);
    expect(answer.erased).toEqual([{ record, attribute: "event_attributes.recording" }]);
    expect(answer.erasures).toHaveLength(1);
    expect((await suite.s.api(`/archivist/v1/${blob.identity}`, { token: suite.token })).status).toBe(404);
    expect((await suite.s.api(attachment, { token: suite.token })).status).toBe(404);
    // Again: nothing left, nothing recorded.
    const again = (await (await erase(vcon)).json()) as { erasures: string[]; erased_blobs: string[] };
    expect(again).toMatchObject({ erasures: [], erased_blobs: [] });
  });

  it("concurrent erasures of one vCon record one erasure", async () => {
    const vcon = crypto.randomUUID();
    const put = await suite.s.api("/archivist/v1/erasure/policy", {
      method: "PUT",
      token: suite.token,
      json: { attributes: ["party_tel"] },
    });
    expect(put.status).toBe(200);
    const asset = await newAsset(suite.s, suite.token);
    const e = vconEvent(vcon, "vcon_created", "2026-01-01");
    await post(asset, { ...e, event_attributes: { ...e.event_attributes, party_tel: "+1 555 0100" } });
    const answers = await Promise.all([erase(vcon), erase(vcon), erase(vcon)]);
    for (const a of answers) expect(a.status, await a.clone().text()).toBe(200);
    const bodies = (await Promise.all(answers.map((a) => a.json()))) as Array<{
      erasures: string[];
      erased: unknown[];
    }>;
    expect(bodies.flatMap((b) => b.erasures)).toHaveLength(1);
    expect(bodies.flatMap((b) => b.erased)).toHaveLength(1);
    const events = (await (
      await suite.s.api(
        `/archivist/v2/${asset}/events?event_attributes.vcon_operation=vcon_attributes_erased`,
        {
          token: suite.token,
        },
      )
    ).json()) as { events: unknown[] };
    expect(events.events).toHaveLength(1);
  });
});
