import { describe, expect, it } from "vitest";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { until } from "../../helpers/poll.js";
import { serviceForSuite } from "../../helpers/service.js";
import { newAsset } from "../../helpers/vcon-event.js";

// The committer hashes the rows the API process has just written without reading them
// back; the database normalises JSON (key order, number spelling). A receipt must still
// verify against the record as the API returns it later, read from the database.
const suite = serviceForSuite();

type Event = Record<string, unknown> & { identity: string; confirmation_status: string };

const awkward: Array<Record<string, unknown>> = [
  { zeta: "last", alpha: "first", mid: "x" },
  { arc_display_type: "naïve – ünïcödé ✓ 𝄞", empty: "" },
  { big: 9007199254740991, negative: -42, spelled: 1e15, zero: -0 },
  { nested: { b: { d: "deep", c: ["x", { y: "z" }] }, a: [] }, list: ["3", "1", "2"] },
  { escapes: 'quote " backslash \\ tab \t newline \n nul-free', slash: "a/b" },
];

describe("the committer's hand-off of fresh rows", () => {
  it("commits rows whose receipts verify against the records as read back from the database", async () => {
    const { s, token } = suite;
    const asset = await newAsset(s, token, "x");
    const posted = await Promise.all(
      awkward.map(async (event_attributes) => {
        const res = await s.api(`/archivist/v2/${asset}/events`, {
          method: "POST",
          token,
          json: { operation: "Record", behaviour: "RecordEvidence", event_attributes },
        });
        const body = (await res.json()) as Event;
        expect(res.status, JSON.stringify(body)).toBe(200);
        return body;
      }),
    );
    await s.service.workers.flush();
    const keys = keysFromKeySet(new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()));
    for (const p of posted) {
      const e = await until(async () => {
        const r = (await (await s.api(`/archivist/v2/${p.identity}`, { token })).json()) as Event;
        return r.confirmation_status === "CONFIRMED" || r.confirmation_status === "UNEQUIVOCAL"
          ? r
          : undefined;
      });
      const [, assetId, , eventId] = e.identity.split("/");
      const res = await s.api(`/archivist/v1/receipts/assets/${assetId}/events/${eventId}`, { token });
      expect(res.status).toBe(200);
      const verdict = verifyRecordReceipt(e, new Uint8Array(await res.arrayBuffer()), keys);
      expect(verdict, JSON.stringify({ verdict, attributes: e.event_attributes })).toMatchObject({
        ok: true,
      });
    }
  });
});
