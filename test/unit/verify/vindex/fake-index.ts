// A log with an index, made in memory from records, for the audit's and the rebuild's tests: the
// log's tiles (served only at its checkpoint's widths, as a mirror holds them), its signed
// checkpoint, the index's revisions and output log, and the record side (lists, positions).

import { formatCheckpoint } from "../../../../src/core/log/tlog-format.js";
import { consistencyProof } from "../../../../src/core/log/tree-proof.js";
import { toBase64, toHex } from "../../../../src/formats/crypto/bytes.js";
import { mmrIndexOfLeaf } from "../../../../src/formats/mmr/indices.js";
import { type ApiRecord, leafOfRecord } from "../../../../src/formats/record/api-record.js";
import { tilePath, tileWidth } from "../../../../src/formats/tlog/tile-path.js";
import { indexOrigin, recordIndexKeys, vrfInput } from "../../../../src/formats/vindex/map.js";
import { isHashedKey, verifiedPosition } from "../../../../src/formats/vindex/position.js";
import { encodeRevision } from "../../../../src/formats/vindex/revision.js";
import { vrfProve, vrfPublicKey } from "../../../../src/formats/vrf/index.js";
import type { IndexSource } from "../../../../src/verify/vindex/audit.js";
import type { RecordSource } from "../../../../src/verify/vindex/rebuild.js";
import type { KeyPlace } from "../../../../src/verify/vindex/replay.js";
import { mth, perfect, referenceTiles, sha } from "../tlog/reference-tree.js";
import { signedNote, vkeyOf } from "../tlog/test-log.js";
import { naiveIndexRoot } from "./naive-index.js";

const TENANT = "6c5a8c0e-2d8f-4e7a-9b1c-0a1b2c3d4e5f";
export const LOG = `tenant/${TENANT}`;
const ORIGIN = `log.example/archivist/v1/merklelogs/${TENANT}/tlog`;
const logSeed = new Uint8Array(32).fill(3);
export const logVkey = vkeyOf(ORIGIN, 0x01, logSeed);
const vrfSecret = new Uint8Array(32).fill(5);
export const vrfKey = vrfPublicKey(vrfSecret);
const VCONS = ["0190b6a1-0000-7000-8000-000000000001", "0190b6a1-0000-7000-8000-000000000002"];

/** Asset-free event `i` of the log at entry `entry` (its leaf follows from this JSON alone). */
export function record(i: number, entry: number): ApiRecord {
  const hex = i.toString(16).padStart(12, "0");
  return {
    identity: `events/0b7e1c2a-3f4d-4e5f-8a9b-${hex}`,
    origin_tenant: LOG,
    attributes: {
      arc_display_type: "vcon_note",
      subject: `vcon://${VCONS[i % 2]}`,
      ...(i % 5 === 0 ? { scitt_issuer: "https://issuer.example" } : {}),
    },
    trails: [],
    event_type: "",
    merklelog_commit: {
      index: String(mmrIndexOfLeaf(entry)),
      idtimestamp: `01${(0x1000 + i).toString(16).padStart(16, "0")}`,
    },
  };
}

export interface FakeLog {
  records: ApiRecord[];
  /** Entry numbers that are no record (a period's link). */
  links: Set<number>;
  entries: Uint8Array[];
  revisions: Array<{ seq: number; log_size: number; log_root: string; index_root: string; vrf_key: string }>;
  logNote: string;
  indexNote: string;
  /** The index checkpoint's revisions' data (for another checkpoint of the same output log). */
  outputData: Uint8Array[];
}

/** The index's roots at `sizes` over `records`, written out (naive-index.ts), positions from the VRF key. */
function indexRoots(records: ApiRecord[], entryOf: (r: ApiRecord) => number, sizes: number[]): Uint8Array[] {
  const filed = records.map((r) => ({ entry: entryOf(r), keys: recordIndexKeys(r) }));
  const places = new Map<string, KeyPlace>();
  for (const k of new Set(filed.flatMap((r) => r.keys))) places.set(k, placeOf(k));
  return sizes.map((size) => naiveIndexRoot(filed, places, size));
}

/** The output log's checkpoint over revision data. */
export const indexNoteOf = (data: Uint8Array[]) =>
  signedNote(
    formatCheckpoint({ origin: indexOrigin(ORIGIN), size: data.length, root: mth(data), extensions: [] }),
    indexOrigin(ORIGIN),
    logSeed,
  );

/**
 * A log of `size` entries (every one a record but the `links`) and revisions at `sizes`;
 * `indexRoot` may replace a revision's root before it is signed (a service signing a wrong index).
 */
export function fakeLog(
  size: number,
  sizes: number[],
  links: number[] = [],
  wrong?: { seq: number },
): FakeLog {
  const records: ApiRecord[] = [];
  const entries: Uint8Array[] = [];
  for (let e = 0; e < size; e++) {
    if (links.includes(e)) entries.push(sha(Uint8Array.of(e & 0xff, e >> 8)));
    else {
      const r = record(records.length, e);
      records.push(r);
      entries.push(leafOfRecord(r));
    }
  }
  const at = new Map(entries.map((d, e) => [toHex(d), e]));
  const roots = indexRoots(records, (r) => at.get(toHex(leafOfRecord(r))) as number, sizes);
  if (wrong) roots[wrong.seq] = new Uint8Array(32).fill(0xee);
  const revisions = sizes.map((logSize, seq) => ({
    seq,
    log_size: logSize,
    log_root: toHex(mth(entries.slice(0, logSize))),
    index_root: toHex(roots[seq] as Uint8Array),
    vrf_key: toHex(vrfKey),
  }));
  const outputData = revisions.map((r) =>
    encodeRevision({
      logSize: r.log_size,
      logRoot: Buffer.from(r.log_root, "hex"),
      indexRoot: Buffer.from(r.index_root, "hex"),
      vrfKey,
    }),
  );
  const logNote = signedNote(
    formatCheckpoint({ origin: ORIGIN, size, root: mth(entries), extensions: [] }),
    ORIGIN,
    logSeed,
  );
  return {
    records,
    links: new Set(links),
    entries,
    revisions,
    logNote,
    indexNote: indexNoteOf(outputData),
    outputData,
  };
}

/** The public side of a fake log; `served` may replace what the revisions route answers. */
export function publicSide(log: FakeLog, served = log.revisions): IndexSource {
  const all = referenceTiles(log.entries);
  const size = log.entries.length;
  return {
    indexCheckpoint: async () => log.indexNote,
    revisions: async (from, to) => ({ size: served.length, revisions: served.slice(from, to) }),
    consistency: async (from, to) => ({
      from,
      to,
      proof: consistencyProof(from, to, perfect(log.outputData)).map(toHex),
    }),
    logCheckpoint: async () => log.logNote,
    tiles: async (ref) => {
      // As a mirror: only the widths of the log's checkpoint are there.
      if (ref.width !== tileWidth(ref.level, ref.index, size)) throw new Error(`no ${tilePath(ref)} here`);
      return all(ref);
    },
  };
}

/** The reader's side: the lists (`listed`, in pages of 7), statements, entries and positions. */
export function readerSide(log: FakeLog, listed = log.records, positions = defaultPositions): RecordSource {
  return {
    async *records() {
      for (let i = 0; i < listed.length; i += 7) yield listed.slice(i, i + 7);
    },
    statement: async () => undefined,
    entry: async (n) =>
      log.links.has(n)
        ? undefined
        : log.records.find(
            (r) =>
              r.merklelog_commit &&
              (r.merklelog_commit as { index: string }).index === String(mmrIndexOfLeaf(n)),
          ),
    positions: async (keys) => positions(keys),
  };
}

/** A key's VRF proof as the service makes it; null for a key placed by a hash. */
const proofOf = (key: string) => (isHashedKey(key) ? null : vrfProve(vrfSecret, vrfInput(LOG, key)));

/** A key's place as vindex/v1 defines it (formats/vindex/position.ts). */
function placeOf(key: string): KeyPlace {
  const placed = verifiedPosition(LOG, key, proofOf(key), vrfKey);
  if (!placed) throw new Error(`no place for ${key}`);
  return placed;
}

/** The positions answer the service gives: every key's VRF proof under the VRF key. */
export function defaultPositions(keys: string[]): unknown {
  return {
    log: LOG,
    vrf_key: toHex(vrfKey),
    positions: keys.map((key) => {
      const pi = proofOf(key);
      return { key, vrf_proof: pi && toBase64(pi) };
    }),
  };
}
