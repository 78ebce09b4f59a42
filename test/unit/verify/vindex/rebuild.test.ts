import { describe, expect, it } from "vitest";
import { nodeSha256 } from "../../../../src/core/node/crypto.js";
import { toHex } from "../../../../src/formats/crypto/bytes.js";
import { auditIndex } from "../../../../src/verify/vindex/audit.js";
import { rebuildIndex } from "../../../../src/verify/vindex/rebuild.js";
import { verifyPositions } from "../../../../src/verify/vindex/records.js";
import {
  defaultPositions,
  fakeLog,
  indexNoteOf,
  LOG,
  logVkey,
  publicSide,
  readerSide,
  record,
  vrfKey,
} from "./fake-index.js";

// `archivist index audit` and `index rebuild` on a log made in memory: 300 entries (two entry
// bundles, the second partial, read at the revisions' smaller widths from the checkpoint's), a
// period's link entry among them, and revisions at sizes on either side of the tile boundary.
const SIZES = [40, 256, 257, 290, 300];
const LINK = 100;
const log = fakeLog(300, SIZES, [LINK]);
const options = { logVkey, log: LOG, hash: nodeSha256 };

describe("the index audit, from public material", () => {
  it("passes a log whose output log is signed, served whole, and bound to the log's roots", async () => {
    const a = await auditIndex(publicSide(log), options);
    expect(a.failures).toEqual([]);
    expect(a.covered).toBe(SIZES.length);
    expect(a.checked).toEqual([
      expect.stringMatching(/index checkpoint of 5 revisions is signed by the log's key under .*\/vindex$/),
      "revisions are numbered 0.., their log sizes increase, and all name one VRF key",
      "the served revisions are the ones the index checkpoint signs",
      "5 revisions' log roots are the log's roots at their sizes (its tiles, under its checkpoint of 300 entries)",
    ]);
    expect(a.notChecked).toEqual([
      expect.stringMatching(/^whether each index root is the map of the log's records/),
    ]);
  });

  it("names the first served revision the signed checkpoint does not commit", async () => {
    const served = log.revisions.map((r) => (r.seq === 2 ? { ...r, index_root: "ab".repeat(32) } : r));
    const a = await auditIndex(publicSide(log, served), options);
    expect(a.failures).toEqual([
      "revision 2 (the log at 257 entries) as served is not the one the index checkpoint of 5 revisions signs",
    ]);
  });

  it("finds a revision bound to a root that is not the log's, a VRF key changed, sizes that do not grow", async () => {
    const rooted = log.revisions.map((r) =>
      r.seq === 1 ? { ...r, log_root: r.log_root.replace(/^../, "00") } : r,
    );
    const a = await auditIndex(publicSide(log, rooted), options);
    expect(a.failures.at(-1)).toBe(
      "revision 1 is bound to the log at 256 entries with a root that is not the log's there",
    );
    const keyed = log.revisions.map((r) => (r.seq === 3 ? { ...r, vrf_key: "11".repeat(32) } : r));
    expect((await auditIndex(publicSide(log, keyed), options)).failures[0]).toMatch(
      /^revision 3 \(the log at 290 entries\) names VRF key 1111/,
    );
    const shrunk = log.revisions.map((r) => (r.seq === 4 ? { ...r, log_size: 290 } : r));
    expect((await auditIndex(publicSide(log, shrunk), options)).failures[0]).toBe(
      "revision 4 is at 290 log entries, not past revision 3's 290",
    );
  });

  it("with the checkpoint saved last time: passes a grown output log, refuses a fork or a shrink", async () => {
    const earlier = indexNoteOf(log.outputData.slice(0, 3));
    const grown = await auditIndex(publicSide(log), { ...options, previous: earlier });
    expect(grown.failures).toEqual([]);
    expect(grown.checked).toContain("the index output log extends the one of 3 revisions audited last time");
    const forked = indexNoteOf([...log.outputData.slice(0, 2), log.outputData[4] as Uint8Array]);
    expect((await auditIndex(publicSide(log), { ...options, previous: forked })).failures).toEqual([
      "the index output log of 5 revisions does not extend the one of 3 last audited (a fork)",
    ]);
    const later = indexNoteOf([...log.outputData, log.outputData[0] as Uint8Array]);
    expect((await auditIndex(publicSide(log), { ...options, previous: later })).failures).toEqual([
      "the index output log shrank: 5 revisions now, 6 when last audited",
    ]);
  });

  it("stops at a checkpoint another key signed", async () => {
    const other = fakeLog(10, [10]);
    const a = await auditIndex(
      { ...publicSide(log), indexCheckpoint: async () => other.indexNote.replace(/— \S+ /, "— x ") },
      options,
    );
    expect(a.stopped).toBe(true);
    expect(a.failures[0]).toMatch(/^the index checkpoint does not verify with the log key/);
  });
});

describe("the index rebuilt from the records", () => {
  it("matches every revision, the link entry asked for and found to be no record", async () => {
    const asked: number[] = [];
    const reader = readerSide(log);
    const r = await rebuildIndex(
      publicSide(log),
      {
        ...reader,
        entry: async (n) => {
          asked.push(n);
          return reader.entry(n);
        },
      },
      options,
    );
    expect(r.failures).toEqual([]);
    expect(r.replay).toEqual({ ok: true, records: 299, revisions: 5, logSize: 300, keys: 5 });
    expect(asked).toEqual([LINK]);
    expect(r.checked).toContain("299 records are the log's entries they say they are (its tiles)");
  });

  it("takes a record the lists left out from its log entry", async () => {
    const listed = log.records.filter((_, i) => i !== 7);
    const r = await rebuildIndex(publicSide(log), readerSide(log, listed), options);
    expect(r.failures).toEqual([]);
    expect(r.replay).toMatchObject({ ok: true, records: 299 });
  });

  it("names a record whose JSON is not what the log holds at its entry", async () => {
    const altered = log.records.map((rec, i) =>
      i === 12 ? { ...rec, attributes: { ...(rec.attributes as object), arc_display_type: "changed" } } : rec,
    );
    const r = await rebuildIndex(publicSide(log), readerSide(log, altered), options);
    expect(r.failures).toEqual([
      `record ${String(record(12, 12).identity)} (log entry 12): its JSON does not give the data the log's tiles hold at entry 12`,
    ]);
  });

  it("names a record whose commit names no log entry (an MMR index that is no leaf's)", async () => {
    const listed = log.records.map((rec, i) =>
      i === 3 ? { ...rec, merklelog_commit: { ...(rec.merklelog_commit as object), index: "2" } } : rec,
    );
    const r = await rebuildIndex(publicSide(log), readerSide(log, listed), options);
    // The genuine record is read from its log entry, which no list gave.
    expect(r.failures).toEqual([`record ${String(record(3, 3).identity)}: it names no log entry`]);
    expect(r.replay).toMatchObject({ ok: true });
  });

  it("names the first size where a signed index root is not the records' map", async () => {
    const wrong = fakeLog(300, SIZES, [LINK], { seq: 3 });
    const r = await rebuildIndex(publicSide(wrong), readerSide(wrong), options);
    expect(r.audit.failures).toEqual([]);
    expect(r.failures).toEqual([
      expect.stringMatching(
        /^the index of the log at 290 entries \(revision 3\) differs from the one rebuilt from the records: the published root is (ee){32}, the rebuilt one [0-9a-f]{64} \(the lists that changed from 257 to 290 log entries: issuer:https:\/\/issuer\.example, subject:vcon:\/\/.*\)$/,
      ),
    ]);
  });

  it("refuses a position whose VRF proof does not verify, or an answer of another log", async () => {
    const forged = (keys: string[]) => {
      const body = defaultPositions(keys) as { positions: Array<{ key: string; vrf_proof: string }> };
      body.positions[0] = { key: keys[0] as string, vrf_proof: body.positions[1]?.vrf_proof ?? "" };
      return body;
    };
    const r = await rebuildIndex(publicSide(log), readerSide(log, log.records, forged), options);
    expect(r.failures).toEqual([
      expect.stringMatching(/^the VRF proof of \S+'s position does not verify \(or is where none belongs\)$/),
    ]);
    const other = (keys: string[]) => ({ ...(defaultPositions(keys) as object), log: "tenant/other" });
    const o = await rebuildIndex(publicSide(log), readerSide(log, log.records, other), options);
    expect(o.failures).toEqual([`the positions are of tenant/other, not ${LOG}`]);
  });

  it("places an asset's key by its hash, with no proof, and a statement's subject only by a VRF proof", () => {
    const asset = "assets/0190b6a1-0000-7000-8000-00000000abcd";
    const vcon = "subject:tel:+15551234567";
    const answer = defaultPositions([asset, vcon]) as { positions: Array<{ vrf_proof: string | null }> };
    expect(answer.positions.map((p) => p.vrf_proof === null)).toEqual([true, false]);
    const places = verifyPositions(LOG, vrfKey, [asset, vcon], answer);
    expect([...places.keys()]).toEqual([asset, vcon]);
    const proofless = { ...answer, positions: [answer.positions[0], { key: vcon, vrf_proof: null }] };
    expect(() => verifyPositions(LOG, vrfKey, [asset, vcon], proofless)).toThrow(
      `the VRF proof of ${vcon}'s position does not verify`,
    );
    const proven = {
      ...answer,
      positions: [{ key: asset, vrf_proof: answer.positions[1]?.vrf_proof }, answer.positions[1]],
    };
    expect(() => verifyPositions(LOG, vrfKey, [asset, vcon], proven)).toThrow(/where none belongs/);
  });

  it("compares only the revisions the log's checkpoint covers", async () => {
    // A mirror of the log at 290 entries: its checkpoint, and tiles of those widths only.
    const older = fakeLog(290, [40, 256, 257, 290], [LINK]);
    const ahead = {
      ...publicSide(log),
      logCheckpoint: async () => older.logNote,
      tiles: publicSide(older).tiles,
    };
    const r = await rebuildIndex(ahead, readerSide(log), options);
    expect(r.failures).toEqual([]);
    expect(r.replay).toMatchObject({ ok: true, revisions: 4, logSize: 290 });
    expect(r.notChecked).toEqual(["1 revisions past the log's checkpoint of 290 entries (their log roots)"]);
    expect(toHex(r.audit.logCheckpoint?.root ?? new Uint8Array())).toBe(older.revisions[3]?.log_root);
  });
});
