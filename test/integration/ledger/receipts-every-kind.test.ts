import { describe, expect, it } from "vitest";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { committedRecord } from "../../helpers/poll.js";
import { serviceForSuite } from "../../helpers/service.js";

// Every kind of record the service commits gets a receipt the offline verifier accepts,
// recomputing the leaf from the record as the API returns it: asset events, and asset-free
// events with and without an event_type (whose leaf follows DataTrails' eventsv1 field order),
// with custom arc_ attributes and attributes set to null among them.
const suite = serviceForSuite();

type Rec = Record<string, unknown> & { identity: string; confirmation_status?: string };
const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());

const committed = (path: string) => committedRecord<Rec>(suite.s, suite.token, path);

describe("receipts of every kind of record verify offline", () => {
  it("asset events, asset-free events with and without event_type, null and custom arc_ attributes", async () => {
    const s = suite.s;
    const token = suite.token;
    const asset = (await (
      await s.api("/archivist/v2/assets", {
        method: "POST",
        token,
        json: { attributes: { arc_display_type: "vcon_droid", arc_namespace: "receipts" } },
      })
    ).json()) as Rec;
    const assetEvent = (await (
      await s.api(`/archivist/v2/${asset.identity}/events`, {
        method: "POST",
        token,
        json: {
          operation: "Record",
          behaviour: "RecordEvidence",
          event_attributes: {
            arc_display_type: "vcon_created",
            arc_event_type: "vcon_created",
            timestamp_declared: null,
          },
        },
      })
    ).json()) as Rec;
    const free = async (body: Record<string, unknown>) => {
      const res = await s.api("/archivist/v1/events", { method: "POST", token, json: body });
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as Rec;
    };
    const plain = await free({
      attributes: { subject: "vcon://one", arc_event_type: "x" },
      trails: ["vcon://one"],
    });
    const typed = await free({
      attributes: { subject: "vcon://two", note: null },
      trails: ["vcon://two"],
      event_type: "vcon_created",
    });

    const keys = keysFromKeySet(await bytes(await s.api("/.well-known/scitt-keys")));
    const records = [
      await committed(`/archivist/v2/${assetEvent.identity}`),
      await committed(`/archivist/v1/${plain.identity}`),
      await committed(`/archivist/v1/${typed.identity}`),
    ];
    expect(((records[0] as Rec).event_attributes as Record<string, unknown>).timestamp_declared).toBeNull();
    expect((records[2] as Rec).event_type).toBe("vcon_created");
    for (const rec of records) {
      const uuid = rec.identity.split("/").at(-1);
      const res = await s.api(`/archivist/v1/receipts/events/${uuid}`, { token });
      expect(res.status, `${rec.identity}: ${res.status}`).toBe(200);
      const receipt = await bytes(res);
      const verdict = verifyRecordReceipt(rec, receipt, keys);
      expect(verdict, `${rec.identity} ${JSON.stringify(verdict)}`).toMatchObject({ ok: true });
      // The receipt binds the record: any change to what was hashed fails it.
      const attrsKey = rec.identity.startsWith("events/") ? "attributes" : "event_attributes";
      const changed = { ...rec, [attrsKey]: { ...(rec[attrsKey] as object), extra: "changed" } };
      expect(verifyRecordReceipt(changed, receipt, keys).ok).toBe(false);
    }
    // The event_type is part of the asset-free leaf.
    const retyped = { ...records[2], event_type: "vcon_deleted" } as Rec;
    const uuid = (records[2] as Rec).identity.split("/").at(-1);
    const receipt = await bytes(await s.api(`/archivist/v1/receipts/events/${uuid}`, { token }));
    expect(verifyRecordReceipt(retyped, receipt, keys).ok).toBe(false);
  });
});
