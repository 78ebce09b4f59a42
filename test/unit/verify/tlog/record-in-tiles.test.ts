import { describe, expect, it } from "vitest";
import { formatCheckpoint } from "../../../../src/core/log/tlog-format.js";
import { leafOfRecord } from "../../../../src/formats/record/api-record.js";
import { verifyRecordInTiles } from "../../../../src/verify/tlog/log-check.js";
import { mth, referenceTiles, sha } from "./reference-tree.js";
import { signedNote, vkeyOf } from "./test-log.js";

const TENANT = "6c5a8c0e-2d8f-4e7a-9b1c-0a1b2c3d4e5f";
const ORIGIN = `log.example/archivist/v1/merklelogs/${TENANT}/tlog`;
const logSeed = new Uint8Array(32).fill(1);
const wSeed = new Uint8Array(32).fill(2);

// An asset-free event: its tree leaf data is its MMR leaf, recomputed from its JSON.
const statement = {
  identity: "events/0b7e1c2a-3f4d-4e5f-8a9b-1c2d3e4f5a6b",
  origin_tenant: `tenant/${TENANT}`,
  attributes: { payload: "c0ffee", arc_display_type: "statement" },
  trails: [],
  event_type: "",
  merklelog_commit: { index: "4", idtimestamp: "01918f0c5a2b000100" },
};

function log(entries: Uint8Array[]) {
  const fetch = referenceTiles(entries);
  const text = formatCheckpoint({
    origin: ORIGIN,
    size: entries.length,
    root: mth(entries),
    extensions: [],
  });
  const note = signedNote(text, ORIGIN, logSeed);
  return { note, text, fetch };
}

describe("a record verified against a log's tiles", () => {
  // Leaf 3 (MMR index 4) is the record's leaf; the others are other records' leaves.
  const entries = [0, 1, 2, 3, 4, 5].map((i) => sha(Uint8Array.of(i)));
  entries[3] = leafOfRecord(statement);
  const { note, text, fetch } = log(entries);
  const logVkey = vkeyOf(ORIGIN, 0x01, logSeed);
  const wVkey = vkeyOf("w.example/1", 0x04, wSeed);

  it("finds a record by its leaf and counts the cosignatures", async () => {
    const cosigned = signedNote(text, ORIGIN, logSeed, [{ name: "w.example/1", seed: wSeed }]);
    const v = await verifyRecordInTiles(
      statement,
      cosigned,
      { logVkey, witnessVkeys: [wVkey], quorum: 1 },
      fetch,
    );
    expect(v).toEqual({ ok: true, leafIndex: 3, size: 6, origin: ORIGIN, cosigners: ["w.example/1"] });
    const unwitnessed = await verifyRecordInTiles(
      statement,
      note,
      { logVkey, witnessVkeys: [wVkey], quorum: 1 },
      fetch,
    );
    expect(unwitnessed).toMatchObject({ ok: false, reason: expect.stringMatching(/0 of the 1 witness/) });
  });

  it("refuses a quorum that is not a count rather than letting it pass unwitnessed", async () => {
    for (const quorum of [Number.NaN, -1, 0.5])
      expect(
        await verifyRecordInTiles(statement, note, { logVkey, witnessVkeys: [wVkey], quorum }, fetch),
      ).toMatchObject({ ok: false, reason: expect.stringMatching(/quorum/) });
  });

  it("refuses a changed payload, another tenancy's record and a record beyond the checkpoint", async () => {
    const trust = { logVkey, witnessVkeys: [], quorum: 0 };
    const changed = { ...statement, attributes: { ...statement.attributes, payload: "c0fffe" } };
    expect((await verifyRecordInTiles(changed, note, trust, fetch)).ok).toBe(false);
    const other = { ...statement, origin_tenant: "tenant/00000000-0000-4000-8000-000000000000" };
    expect(await verifyRecordInTiles(other, note, trust, fetch)).toMatchObject({ ok: false });
    const later = { ...statement, merklelog_commit: { index: "10", idtimestamp: "01918f0c5a2b000100" } };
    expect(await verifyRecordInTiles(later, note, trust, fetch)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/beyond the checkpoint/),
    });
    // A payload the record carries is never a leaf of its own (issue 55): a log whose leaf 3 is
    // the payload's hash holds no record with these attributes.
    const byPayload = [...entries];
    byPayload[3] = sha(Buffer.from("c0ffee", "hex"));
    const byPayloadLog = log(byPayload);
    expect(await verifyRecordInTiles(statement, byPayloadLog.note, trust, byPayloadLog.fetch)).toMatchObject({
      ok: false,
    });
  });
});
