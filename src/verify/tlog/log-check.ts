import { leafIndexOfMmrIndex } from "../../formats/mmr/index.js";
import { type ApiRecord, leafOfRecord, logIndexOf } from "../../formats/record/api-record.js";
import { type Checkpoint, parseCheckpoint } from "../../formats/tlog/checkpoint.js";
import { verifyNote } from "../../formats/tlog/note.js";
import { type TileFetch, verifyEntryInTiles } from "../../formats/tlog/tiles.js";
import { verifierFromVkey } from "../../formats/tlog/vkey-verifier.js";

/** Whom a verifier trusts for a log: its key, and the witnesses of which `quorum` must cosign. */
export interface LogTrust {
  logVkey: string;
  witnessVkeys: string[];
  quorum: number;
}

export type CheckpointVerdict =
  | { ok: true; checkpoint: Checkpoint; cosigners: string[] }
  | { ok: false; reason: string };

/**
 * Checks a checkpoint note: signed by the log's key (whose name is the origin), every known
 * signature valid, and cosigned (cosignature/v1) by at least `quorum` of the trusted witnesses.
 *
 * @example
 * ```ts
 * const v = verifyCheckpoint(note, { logVkey, witnessVkeys: [witnessVkey], quorum: 1 });
 * if (v.ok) console.log(v.checkpoint.size, v.cosigners);
 * ```
 */
export function verifyCheckpoint(note: string, trust: LogTrust): CheckpointVerdict {
  // A quorum that is not a count (NaN from a typed-in "abc") would compare false and pass unwitnessed.
  if (!Number.isSafeInteger(trust.quorum) || trust.quorum < 0)
    return { ok: false, reason: `the witness quorum ${trust.quorum} is not a whole number >= 0` };
  try {
    const log = verifierFromVkey(trust.logVkey);
    const witnesses = trust.witnessVkeys.map(verifierFromVkey);
    const { text, verified } = verifyNote(note, [log, ...witnesses]);
    const checkpoint = parseCheckpoint(text);
    if (!verified.some((s) => s.name === log.name && s.keyId === log.keyId))
      return { ok: false, reason: "the checkpoint is not signed by the log's key" };
    if (checkpoint.origin !== log.name)
      return {
        ok: false,
        reason: `the checkpoint's origin ${checkpoint.origin} is not the key's log ${log.name}`,
      };
    const cosigners = [
      ...new Set(
        verified
          .filter((s) => witnesses.some((w) => w.name === s.name && w.keyId === s.keyId))
          .map((s) => s.name),
      ),
    ];
    if (cosigners.length < trust.quorum)
      return {
        ok: false,
        reason: `${cosigners.length} of the ${trust.quorum} witness cosignatures needed (${cosigners.join(", ") || "none"})`,
      };
    return { ok: true, checkpoint, cosigners };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

export type RecordInLogVerdict =
  | { ok: true; leafIndex: number; size: number; origin: string; cosigners: string[] }
  | { ok: false; reason: string };

/**
 * Verifies a record (its API JSON) against a log's tiles with nothing else: the checkpoint
 * (signature, cosignature quorum), the record's leaf recomputed from its JSON at its leaf
 * index in the entry bundle and the level-0 tile, the tiles' path to the checkpoint's root.
 * `fetch` reads tiles from anywhere: the service, a CDN, a mirror directory.
 *
 * @example
 * ```ts
 * const read = async (t: TileRef) => new Uint8Array(await (await fetch(`${logUrl}/${tilePathOf(t)}`)).arrayBuffer());
 * const v = await verifyRecordInTiles(record, checkpointNote, { logVkey, witnessVkeys: [], quorum: 0 }, read);
 * ```
 */
export async function verifyRecordInTiles(
  record: ApiRecord,
  checkpointNote: string,
  trust: LogTrust,
  fetch: TileFetch,
): Promise<RecordInLogVerdict> {
  const cp = verifyCheckpoint(checkpointNote, trust);
  if (!cp.ok) return cp;
  const { checkpoint } = cp;
  const entry = recordEntry(record, leafOfRecord);
  if (!entry.ok) return entry;
  const { leaves: leaf, leafIndex } = entry;
  const elsewhere = otherLog(record, checkpoint.origin);
  if (elsewhere) return { ok: false, reason: elsewhere };
  if (leafIndex >= checkpoint.size)
    return {
      ok: false,
      reason: `log entry ${leafIndex} is beyond the checkpoint's ${checkpoint.size} entries`,
    };
  const inTiles = await verifyEntryInTiles(leafIndex, leaf, checkpoint.size, checkpoint.root, fetch);
  if (!inTiles.ok) return inTiles;
  return { ok: true, leafIndex, size: checkpoint.size, origin: checkpoint.origin, cosigners: cp.cosigners };
}

/** The record's leaf in the log's RFC 9162 tree, from the MMR index its log entry names. */
export function recordLeafIndex(record: ApiRecord): number | undefined {
  const entry = record.merklelog_entry as { commit?: { index?: string } } | undefined;
  const mmrIndex = logIndexOf(entry?.commit?.index ?? (record.merklelog_commit as { index?: string })?.index);
  return mmrIndex === undefined ? undefined : leafIndexOfMmrIndex(mmrIndex);
}

/**
 * What a record brings to a check against its log: its leaf (or candidate leaves, as `leaves`
 * reads them) and its entry index; instead, why not, when the record cannot be read or has no index.
 */
export function recordEntry<L>(
  record: ApiRecord,
  leaves: (record: ApiRecord) => L,
): { ok: true; leaves: L; leafIndex: number } | { ok: false; reason: string } {
  try {
    const read = leaves(record);
    const leafIndex = recordLeafIndex(record);
    if (leafIndex === undefined) return { ok: false, reason: "the record has no log index" };
    return { ok: true, leaves: read, leafIndex };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

/** Why a checkpoint of `origin` is not of the record's tenancy's log; undefined when it is. */
export function otherLog(record: ApiRecord, origin: string): string | undefined {
  const tenant = String(record.tenant_identity ?? record.origin_tenant ?? "").replace(/^tenant\//, "");
  if (origin.endsWith(`/merklelogs/${tenant}/tlog`)) return undefined;
  return `the record is in tenancy ${tenant}'s log, not in ${origin}`;
}
