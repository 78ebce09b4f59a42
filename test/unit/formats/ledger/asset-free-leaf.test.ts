import { describe, expect, it } from "vitest";
import { formatIdTimestamp } from "../../../../src/core/log/idtimestamp.js";
import {
  type AssetFreeLeafSchema,
  assetFreeEventContent,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
  legacySortedAssetFreeEventContent,
} from "../../../../src/formats/record/index.js";
import { verifyRecordReceipt } from "../../../../src/verify/receipts/record.js";
import { vectorPublicKey } from "../../../helpers/vector-key.js";
import { receiptInLog } from "../cose/fixture.js";

const text = (b: Uint8Array) => Buffer.from(b).toString("utf8");
const tenant = "6a009b40-eb55-4159-81f0-69024f89f53c";
const idtimestamp = 0x8fa97ef269039b00n;

describe("the asset-free event leaf follows DataTrails' eventsv1 field order", () => {
  it("writes attributes, trails, then event_type (struct order), with maps sorted bytewise", () => {
    const e = { attributes: { b: "1", a: "<2>" }, trails: ["t"], event_type: "vcon_created" };
    const json = '{"attributes":{"a":"\\u003c2\\u003e","b":"1"},"trails":["t"],"event_type":"vcon_created"}';
    expect(text(assetFreeEventContent(e))).toBe(`${json.length}:${json}`);
    const sorted =
      '{"attributes":{"a":"\\u003c2\\u003e","b":"1"},"event_type":"vcon_created","trails":["t"]}';
    expect(text(legacySortedAssetFreeEventContent(e))).toBe(`${sorted.length}:${sorted}`);
  });

  it("is the same in both schemas without an event_type, null trails included", () => {
    const e = { attributes: { x: null, y: "z" }, trails: null };
    const json = '{"attributes":{"x":null,"y":"z"},"trails":null}';
    expect(text(assetFreeEventContent(e))).toBe(`${json.length}:${json}`);
    expect(text(legacySortedAssetFreeEventContent(e))).toBe(`${json.length}:${json}`);
  });

  it("keeps receipts issued over the sorted leaf verifying, and binds which schema was used", () => {
    const record = {
      identity: "events/0194b168-bac0-75e6-bbc4-a47cc45bdbf5",
      attributes: { subject: "vcon://x" },
      trails: ["vcon://x"],
      event_type: "vcon_created",
      origin_tenant: `tenant/${tenant}`,
    };
    const receiptFor = (schema: AssetFreeLeafSchema) => {
      const leaf = assetFreeEventLeafHash(record, idtimestamp, assetFreeExtraBytes(tenant), schema);
      const leaves = [new Uint8Array(32).fill(7), leaf, new Uint8Array(32).fill(9)];
      const { mmrIndex, receipt } = receiptInLog(leaves, 1, { tenant, idtimestamp });
      const committed = {
        ...record,
        merklelog_commit: { index: String(mmrIndex), idtimestamp: formatIdTimestamp(idtimestamp) },
      };
      return { receipt, committed };
    };
    for (const schema of ["eventsv1", "sorted-2026-11"] as const) {
      const { receipt, committed } = receiptFor(schema);
      expect(verifyRecordReceipt(committed, receipt, vectorPublicKey).ok, schema).toBe(true);
      expect(verifyRecordReceipt({ ...committed, event_type: "other" }, receipt, vectorPublicKey).ok).toBe(
        false,
      );
    }
  });
});
