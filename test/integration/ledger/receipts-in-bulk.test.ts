import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { receiptsOfRecords } from "../../../src/services/ledger/receipts-in-bulk.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { until } from "../../helpers/poll.js";
import { serviceForSuite } from "../../helpers/service.js";
import { newAsset } from "../../helpers/vcon-event.js";

// The evidence route reads its records' receipts many at a time (issue 55: a 1,001-record bundle
// took a request, and a few reads, per receipt). Each must be what the receipt route serves for
// the record, and what it states of a receipt (log, index, peak, tree size) what the receipt says.
const suite = serviceForSuite();

type Event = Record<string, unknown> & { identity: string; confirmation_status: string };

describe("receipts read many at a time", () => {
  it("are the receipts the routes serve, each verifying, with what the service states of them", async () => {
    const { s, token } = suite;
    const asset = await newAsset(s, token, "x");
    const posted: Event[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await s.api("/archivist/v2/assets/-/events:batch", {
        method: "POST",
        token,
        json: {
          requests: Array.from({ length: 50 }, (_, k) => ({
            asset_identity: asset,
            event: {
              operation: "Record",
              behaviour: "RecordEvidence",
              event_attributes: { n: String(50 * i + k) },
            },
          })),
        },
      });
      expect(res.status).toBe(200);
      posted.push(...((await res.json()) as { responses: Event[] }).responses);
    }
    const last = posted.at(-1) as Event;
    await until(async () => {
      await s.service.workers.flush();
      const r = await s.api(`/archivist/v1/receipts/${last.identity}?profile=rfc9162`, { token });
      return r.status === 200 ? true : undefined;
    }, 60_000);
    const keys = keysFromKeySet(new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()));
    const ids = posted.map((e) => e.identity.split("/")[3] as string);
    const unknown = randomUUID();
    for (const profile of ["mmr", "rfc9162"] as const) {
      const made = await receiptsOfRecords(s.service.ctx, [...ids, unknown], profile);
      expect(made.size).toBe(ids.length);
      expect(made.has(unknown)).toBe(false);
      for (const [i, id] of ids.entries()) {
        const got = made.get(id);
        const record = (await (
          await s.api(`/archivist/v2/${posted[i]?.identity}`, { token })
        ).json()) as Event;
        const v = verifyRecordReceipt(record, got?.receipt as Uint8Array, keys);
        expect(v).toMatchObject({ ok: true, profile, subject: got?.log });
        if (v.ok && profile === "mmr") expect([v.mmrIndex, v.peak]).toEqual([got?.mmrIndex, got?.peak]);
        if (v.ok && profile === "rfc9162") expect(v.treeSize).toBe(got?.treeSize);
        const served = await s.api(`/archivist/v1/receipts/${record.identity}?profile=${profile}`, { token });
        expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(got?.receipt as Uint8Array))).toBe(
          true,
        );
      }
    }
  });
});
