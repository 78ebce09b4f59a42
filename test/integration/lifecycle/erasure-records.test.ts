import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyCommand } from "../../../src/cli/verify.js";
import { keysFromKeySet, verifyRecordReceipt } from "../../../src/verify/index.js";
import { runCli } from "../../helpers/cli-output.js";
import { committedRecord, until } from "../../helpers/poll.js";
import { serviceForSuite } from "../../helpers/service.js";
import { untilSealed, vconEvent } from "../../helpers/vcon-event.js";

// Erasure beyond asset events (docs/vcon-lifecycle.md, §4): an asset's creation attributes (its
// NewAsset record) and asset-free events commit their erasable attributes by a salted hash too;
// erasing a vCon erases them with its asset events, every receipt stays valid, and the verifier
// says "erased by …".
const suite = serviceForSuite();
const COMMITMENT = { salted_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) };

type Rec = Record<string, unknown> & {
  identity: string;
  confirmation_status?: string;
  attributes?: Record<string, unknown>;
  asset_attributes?: Record<string, unknown>;
  erasable?: Record<string, Record<string, Record<string, Record<string, unknown>>>>;
};

const api = (path: string, init: { method?: string; json?: unknown } = {}) =>
  suite.s.api(path, { token: suite.token, ...init });

async function receipt(identity: string): Promise<Uint8Array> {
  const res = await until(async () => {
    const r = await api(`/archivist/v1/receipts/${identity}`);
    return r.status === 200 ? r : undefined;
  }, 30_000);
  return new Uint8Array(await res.arrayBuffer());
}

describe("erasure of creation attributes and asset-free events", () => {
  it("commits them by a salted hash, erases them with the vCon, and every receipt still verifies", async () => {
    expect(
      (await api("/archivist/v1/erasure/policy", { method: "PUT", json: { attributes: ["party_tel"] } }))
        .status,
    ).toBe(200);
    const vcon = crypto.randomUUID();
    // An asset created with personal data among its attributes; one named erasable by the request alone.
    const created = await api("/archivist/v2/assets", {
      method: "POST",
      json: {
        attributes: {
          arc_display_type: "vcon",
          party_tel: "+1 555 0199",
          party_email: "bob@example.com",
          team: "sales",
        },
        erasable_attributes: ["party_email"],
      },
    });
    expect(created.status, await created.clone().text()).toBe(200);
    const asset = (await created.json()) as { identity: string; attributes: Record<string, unknown> };
    expect(asset.attributes).toMatchObject({ party_tel: COMMITMENT, party_email: COMMITMENT, team: "sales" });
    const e = vconEvent(vcon, "vcon_created", "2026-01-01");
    const recorded = await api(`/archivist/v2/${asset.identity}/events`, {
      method: "POST",
      json: { ...e, event_attributes: { ...e.event_attributes, party_tel: "+1 555 0199" } },
    });
    expect(recorded.status).toBe(200);
    const events = (await (await api(`/archivist/v2/${asset.identity}/events`)).json()) as { events: Rec[] };
    const creation = events.events.find((x) => x.operation === "NewAsset") as Rec;
    expect(creation.asset_attributes).toMatchObject({ party_tel: COMMITMENT, party_email: COMMITMENT });
    expect(creation.erasable?.asset_attributes?.party_tel).toEqual({
      disclosed: { value: "+1 555 0199", salt: expect.any(String) },
    });

    // An asset-free event of the vCon, as vcon-server's datatrails link writes one beside the asset event.
    const free = await api("/archivist/v1/events", {
      method: "POST",
      json: {
        attributes: {
          subject: `vcon://${vcon}`,
          vcon_operation: "vcon_created",
          party_tel: "+1 555 0199",
          party_name: "Bob",
        },
        trails: [`vcon://${vcon}`],
        erasable_attributes: ["party_name"],
      },
    });
    expect(free.status, await free.clone().text()).toBe(200);
    const freeEvent = (await free.json()) as Rec;
    expect(freeEvent.attributes).toMatchObject({ party_tel: COMMITMENT, party_name: COMMITMENT });
    expect(freeEvent.erasable?.attributes?.party_name).toEqual({
      disclosed: { value: "Bob", salt: expect.any(String) },
    });
    // A client may not send a commitment's form itself.
    const forged = await api("/archivist/v1/events", {
      method: "POST",
      json: { attributes: { party_tel: { salted_sha256: "ab".repeat(32) } } },
    });
    expect(forged.status).toBe(400);

    await untilSealed(suite.s, suite.token, asset.identity);
    const sealedFree = await committedRecord<Rec>(
      suite.s,
      suite.token,
      `/archivist/v1/${freeEvent.identity}`,
    );
    const keys = keysFromKeySet(new Uint8Array(await (await api("/.well-known/scitt-keys")).arrayBuffer()));
    const before = new Map<string, Uint8Array>();
    for (const id of [creation.identity, freeEvent.identity]) before.set(id, await receipt(id));
    expect(verifyRecordReceipt(sealedFree, before.get(freeEvent.identity) as Uint8Array, keys)).toMatchObject(
      { ok: true },
    );

    // Erasing the vCon erases its asset events', its asset's creation and its asset-free events' values.
    const res = await api("/archivist/v1/erasures", {
      method: "POST",
      json: { vcon: `vcon://${vcon}`, basis: "GDPR Art. 17: request of 2026-03-02" },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const answer = (await res.json()) as {
      erasures: string[];
      erased: Array<{ record: string; attribute: string }>;
    };
    expect(answer.erased).toEqual(
      expect.arrayContaining([
        { record: creation.identity, attribute: "asset_attributes.party_tel" },
        { record: creation.identity, attribute: "asset_attributes.party_email" },
        { record: freeEvent.identity, attribute: "attributes.party_tel" },
        { record: freeEvent.identity, attribute: "attributes.party_name" },
      ]),
    );
    // One erasure record on the asset's trail, one asset-free beside the asset-free events.
    expect(answer.erasures).toHaveLength(2);
    const freeErasure = answer.erasures.find((x) => x.startsWith("events/")) as string;
    const freeErasureRec = (await (await api(`/archivist/v1/${freeErasure}`)).json()) as Rec;
    expect(freeErasureRec.attributes).toMatchObject({
      vcon_operation: "vcon_attributes_erased",
      subject: `vcon://${vcon}`,
      erased_records: [freeEvent.identity],
      erasure_basis: "GDPR Art. 17: request of 2026-03-02",
    });
    expect(freeErasureRec.trails).toEqual([`vcon://${vcon}`]);

    const dir = mkdtempSync(join(tmpdir(), "erasure-records-"));
    writeFileSync(
      join(dir, "keys.cbor"),
      new Uint8Array(await (await api("/.well-known/scitt-keys")).arrayBuffer()),
    );
    for (const [id, path, map, name] of [
      [creation.identity, `/archivist/v2/${creation.identity}`, "asset_attributes", "party_email"],
      [freeEvent.identity, `/archivist/v1/${freeEvent.identity}`, "attributes", "party_name"],
    ] as const) {
      const rec = (await (await api(path)).json()) as Rec;
      expect(rec.erasable?.[map]?.[name]?.erased).toMatchObject({
        basis: "GDPR Art. 17: request of 2026-03-02",
        record: expect.any(String),
      });
      expect(JSON.stringify(rec)).not.toContain(name === "party_name" ? "Bob" : "bob@example.com");
      // The receipt taken before the erasure, and one taken after, both still verify.
      expect(verifyRecordReceipt(rec, before.get(id) as Uint8Array, keys), id).toMatchObject({ ok: true });
      expect(verifyRecordReceipt(rec, await receipt(id), keys), id).toMatchObject({ ok: true });
      // The verifier says erased by whom, not tampered.
      writeFileSync(join(dir, "record.json"), JSON.stringify(rec));
      writeFileSync(join(dir, "receipt.cose"), before.get(id) as Uint8Array);
      const cli = await runCli(
        (a) => verifyCommand.run(a),
        [join(dir, "record.json"), "--receipt", join(dir, "receipt.cose"), "--keys", join(dir, "keys.cbor")],
      );
      expect(cli.code, cli.out).toBe(0);
      expect(cli.out).toContain(`${map}.${name} erased by `);
      expect(cli.out).toContain("under GDPR Art. 17: request of 2026-03-02");
    }
    // Asked again: nothing is left, nothing is recorded.
    const again = (await (
      await api("/archivist/v1/erasures", {
        method: "POST",
        json: { record: freeEvent.identity, basis: "again" },
      })
    ).json()) as { erasures: string[]; already_erased: unknown[] };
    expect(again.erasures).toEqual([]);
    expect(again.already_erased).toHaveLength(2);
  });
});
