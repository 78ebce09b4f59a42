// What the rebuild reads of each record and of the service's positions, checked before the replay
// believes them: a record's keys and the leaves it may be in the log as (its JSON recomputes them),
// and each key's position under the VRF key the signed revisions name.
import { fromBase64, toHex } from "../../formats/crypto/bytes.js";
import { type ApiRecord, commitOf } from "../../formats/record/api-record.js";
import { VindexError } from "../../formats/vindex/error.js";
import { recordIndexKeys } from "../../formats/vindex/map.js";
import { verifiedPosition } from "../../formats/vindex/position.js";
import { recordTreeLeaves } from "../receipts/tree-leaf.js";
import { recordLeafIndex } from "../tlog/log-check.js";
import type { KeyPlace } from "./replay.js";

/** A record as the rebuild files and checks it. */
export interface RecordFacts {
  identity: string;
  /** Its log entry number (RFC 9162 leaf index). */
  entry: number;
  /** The keys the map function files it under. */
  keys: string[];
  /** The data its log entry may hold, recomputed from its JSON (and its statement, if registered). */
  leaves: Uint8Array[];
}

export type RecordReading =
  | { kind: "record"; facts: RecordFacts }
  /** Not in the log yet: no commit. */
  | { kind: "uncommitted"; identity: string }
  | { kind: "unreadable"; identity: string; reason: string };

/** The log entry a record names (its commit's MMR index, a leaf's), else undefined. */
export function entryOf(record: ApiRecord): number | undefined {
  try {
    return recordLeafIndex(record);
  } catch {
    // An MMR index that is no leaf's names no entry.
    return undefined;
  }
}

/**
 * A record as the API returns it, read for the rebuild. `statement` is the signed statement a
 * registered statement's record stands for: its log entry holds the payload's hash, which only the
 * statement (bound to the record field by field) ties to what the record says.
 */
export function readRecord(record: ApiRecord, statement?: Uint8Array): RecordReading {
  const identity = String(record.identity ?? "");
  if (!commitOf(record)) return { kind: "uncommitted", identity };
  const entry = entryOf(record);
  if (entry === undefined) return { kind: "unreadable", identity, reason: "it names no log entry" };
  const leaves = recordTreeLeaves(record, statement);
  if (!leaves.ok) return { kind: "unreadable", identity, reason: leaves.reason };
  return {
    kind: "record",
    facts: { identity, entry, keys: recordIndexKeys(record), leaves: leaves.candidates },
  };
}

/**
 * The positions of `asked` keys from an answer of `POST /archivist/v1/vindex/positions`, each VRF
 * proof verified under `vrfKey` (the one the signed revisions name) for `log`: the position and
 * salt are the proof's output, never a value the service hands over; a hashed key (an asset's)
 * carries no proof and is placed from the key alone. VindexError names the first key whose
 * proof fails, or what else is wrong with the answer.
 */
export function verifyPositions(
  log: string,
  vrfKey: Uint8Array,
  asked: readonly string[],
  body: unknown,
): Map<string, KeyPlace> {
  const answer = body as { log?: unknown; vrf_key?: unknown; positions?: unknown } | null;
  if (typeof answer !== "object" || answer === null || !Array.isArray(answer.positions))
    throw new VindexError("the positions answer has no list of positions");
  if (answer.log !== log) throw new VindexError(`the positions are of ${String(answer.log)}, not ${log}`);
  if (answer.vrf_key !== toHex(vrfKey))
    throw new VindexError(
      `the positions are under VRF key ${String(answer.vrf_key)}, not the revisions' ${toHex(vrfKey)}`,
    );
  if (answer.positions.length !== asked.length)
    throw new VindexError(`${answer.positions.length} positions answer ${asked.length} keys`);
  const out = new Map<string, KeyPlace>();
  for (const [i, raw] of answer.positions.entries()) {
    const p = (raw ?? {}) as { key?: unknown; vrf_proof?: unknown };
    const key = asked[i] as string;
    if (p.key !== key) throw new VindexError(`position ${i} is of ${String(p.key)}, not ${key}`);
    let pi: Uint8Array | null | undefined;
    try {
      pi =
        p.vrf_proof === null ? null : typeof p.vrf_proof === "string" ? fromBase64(p.vrf_proof) : undefined;
    } catch {
      pi = undefined;
    }
    const placed = pi === undefined ? undefined : verifiedPosition(log, key, pi, vrfKey);
    if (!placed)
      throw new VindexError(`the VRF proof of ${key}'s position does not verify (or is where none belongs)`);
    out.set(key, placed);
  }
  return out;
}
