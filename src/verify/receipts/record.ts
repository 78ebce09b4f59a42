import {
  decodeReceipt,
  decodeRfc9162Receipt,
  receiptVds,
  VDS_RFC9162,
  verifyReceipt,
  verifyRfc9162Receipt,
} from "../cose/index.js";
import { toHex } from "../crypto/bytes.js";
import type { PublicKey } from "../crypto/public-key.js";
import { parseIdTimestamp, tlogLeafData } from "../ledger/index.js";
import { leafIndexOfMmrIndex } from "../mmr/index.js";
import {
  type AssetFreeLeafSchema,
  assetEventLeafHash,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
  assetFreeLeafSchemas,
  type HashedAssetEvent,
} from "../record/index.js";
import { leafHash } from "../rfc9162/index.js";

/** The outcome of an offline check: what was proven, or the first reason it failed. */
export type Verdict =
  | {
      ok: true;
      /** mmr: the path led to a peak of a seal; rfc9162: to the root of the tree at `treeSize`. */
      profile: "mmr" | "rfc9162";
      mmrIndex: number;
      leaf: string;
      /** The MMR peak, or the RFC 9162 root, the receipt's signature covers. */
      peak: string;
      issuer: string;
      subject: string;
      treeSize?: number;
    }
  | { ok: false; reason: string };

/** A record as the API returns it: an asset event, or an asset-free event. */
export type ApiRecord = Record<string, unknown>;

const hex = toHex;

export function commitOf(record: ApiRecord): { index: string; idtimestamp: string } | undefined {
  const entry = record.merklelog_entry as { commit?: { index?: string; idtimestamp?: string } } | undefined;
  const c =
    entry?.commit ?? (record.merklelog_commit as { index?: string; idtimestamp?: string } | undefined);
  return c?.idtimestamp ? { index: String(c.index ?? ""), idtimestamp: c.idtimestamp } : undefined;
}

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const ASSET_EVENT = new RegExp(`^(public)?assets/${UUID}/events/${UUID}$`, "i");
const ASSET_FREE_EVENT = new RegExp(`^events/${UUID}$`, "i");

/** What a record is, by its identity: the one thing that decides which leaf it is checked against. */
export type RecordKind = "asset-event" | "asset-free-event";

export function recordKind(record: ApiRecord): RecordKind {
  const identity = String(record.identity ?? "");
  if (ASSET_EVENT.test(identity)) return "asset-event";
  if (ASSET_FREE_EVENT.test(identity)) return "asset-free-event";
  throw new Error(
    `the record's identity "${identity.slice(0, 80)}" is neither an asset event's nor an asset-free event's`,
  );
}

/**
 * A log index as the log writes it (a decimal without leading zeroes, as a string or a JSON
 * number), else undefined: the index is not in the leaf, so a record may not say "01", "0x1" or
 * "" for the entry a proof places it at.
 */
export function logIndexOf(v: unknown): number | undefined {
  const s = typeof v === "number" ? String(v) : typeof v === "string" ? v : "";
  if (!/^(0|[1-9][0-9]*)$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The kind a record's identity names, or undefined for neither. */
export function kindOf(record: ApiRecord): RecordKind | undefined {
  try {
    return recordKind(record);
  } catch {
    return undefined;
  }
}

/**
 * The attributes a record's leaf commits to: an asset event's `event_attributes`, an asset-free
 * event's `attributes`. The other map is not hashed on that record, so whatever it says is
 * unsigned: read in place of the signed one, a genuine record would say what its leaf does not
 * (another vCon's subject, a revocation for a grant). A record of neither kind proves nothing;
 * its `event_attributes`, else its `attributes`, are read as they are.
 */
export function signedAttributes(record: ApiRecord): Record<string, unknown> | undefined {
  const kind = kindOf(record);
  const a =
    kind === "asset-free-event"
      ? record.attributes
      : kind === "asset-event"
        ? record.event_attributes
        : (record.event_attributes ?? record.attributes);
  return typeof a === "object" && a !== null && !Array.isArray(a)
    ? (a as Record<string, unknown>)
    : undefined;
}

/**
 * The leaf hash a record commits to, recomputed from its JSON alone.
 *
 * @example
 * ```ts
 * const leaf = leafOfRecord(record); // the 32 bytes the log committed to, from the record's JSON alone
 * ```
 */
export function leafOfRecord(record: ApiRecord, schema: AssetFreeLeafSchema = "eventsv1"): Uint8Array {
  const kind = recordKind(record);
  const commit = commitOf(record);
  if (!commit) throw new Error("the record has no merklelog commit (it is not committed yet)");
  const { id } = parseIdTimestamp(commit.idtimestamp);
  if (kind === "asset-free-event") {
    const tenant = String(record.origin_tenant ?? "").replace(/^tenant\//, "");
    const e = record as { attributes: Record<string, unknown>; trails?: string[]; event_type?: string };
    return assetFreeEventLeafHash(
      { attributes: e.attributes, trails: e.trails ?? null, event_type: e.event_type ?? "" },
      id,
      assetFreeExtraBytes(tenant),
      schema,
    );
  }
  return assetEventLeafHash(record as unknown as HashedAssetEvent, id);
}

/**
 * The leaves a record may commit to, newest schema first: an asset-free event with an
 * `event_type` committed before 2026-11-24 was hashed with its keys sorted.
 */
export function candidateLeaves(record: ApiRecord): Uint8Array[] {
  if (recordKind(record) === "asset-event") return [leafOfRecord(record)];
  const e = record as { event_type?: string };
  return assetFreeLeafSchemas({ event_type: e.event_type ?? "" }).map((schema) =>
    leafOfRecord(record, schema),
  );
}

/**
 * Checks a record against its receipt with nothing but the service's public keys: the leaf
 * is recomputed from the record, the path leads to a peak, and the seal key signed that peak.
 *
 * @example
 * ```ts
 * const verdict = verifyRecordReceipt(record, receiptBytes, keysFromKeySet(keySetBytes));
 * if (!verdict.ok) throw new Error(verdict.reason);
 * ```
 */
export function verifyRecordReceipt(
  record: ApiRecord,
  receipt: Uint8Array,
  keys: Map<string, PublicKey> | PublicKey,
): Verdict {
  let leaves: Uint8Array[];
  try {
    leaves = candidateLeaves(record);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  let vds: number | undefined;
  try {
    vds = receiptVds(receipt);
  } catch (err) {
    return { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
  }
  if (vds === VDS_RFC9162) {
    const tried = leaves.map((leaf) => verifyRfc9162RecordReceipt(record, leaf, receipt, keys));
    return tried.find((t) => t.ok) ?? tried[0] ?? { ok: false, reason: "no leaf to verify" };
  }
  let kid: string;
  let mmrIndex: number;
  try {
    ({ kid, mmrIndex } = decodeReceipt(receipt));
  } catch (err) {
    return { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
  }
  const key = keys instanceof Map ? keys.get(kid) : keys;
  if (!key) return { ok: false, reason: `no public key with kid ${kid}` };
  const commit = commitOf(record);
  if (commit && String(mmrIndex) !== commit.index)
    return {
      ok: false,
      reason: `receipt is for MMR position ${mmrIndex}, the record says MMR position ${commit.index}`,
    };
  const tried = leaves.map((leaf) => ({ leaf, r: verifyReceipt(receipt, leaf, key) }));
  const hit = tried.find((t) => t.r.ok) ?? tried[0];
  if (!hit) return { ok: false, reason: "no leaf to verify" };
  const { leaf, r } = hit;
  if (!r.ok) return r;
  return {
    ok: true,
    profile: "mmr",
    mmrIndex,
    leaf: hex(leaf),
    peak: hex(r.peak),
    issuer: r.info.issuer,
    subject: r.info.subject,
  };
}

/** An RFC9162_SHA256 receipt of a record: its tree leaf is SHA-256(0x00 ‖ the record's MMR leaf). */
function verifyRfc9162RecordReceipt(
  record: ApiRecord,
  mmrLeaf: Uint8Array,
  receipt: Uint8Array,
  keys: Map<string, PublicKey> | PublicKey,
): Verdict {
  const commit = commitOf(record) as { index: string };
  const mmrIndex = logIndexOf(commit.index);
  if (mmrIndex === undefined)
    return { ok: false, reason: `the record's log index "${commit.index}" is not a decimal` };
  let leafIndex: number;
  try {
    leafIndex = leafIndexOfMmrIndex(mmrIndex);
  } catch {
    return { ok: false, reason: `the record's log index ${commit.index} is not a leaf` };
  }
  const leaf = leafHash(tlogLeafData({ mmrLeaf }));
  let kid: string;
  try {
    kid = decodeRfc9162Receipt(receipt).kid;
  } catch (err) {
    return { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
  }
  const key = keys instanceof Map ? keys.get(kid) : keys;
  if (!key) return { ok: false, reason: `no public key with kid ${kid}` };
  const r = verifyRfc9162Receipt(receipt, leaf, key);
  if (!r.ok) return r;
  if (r.info.leafIndex !== leafIndex)
    return {
      ok: false,
      reason: `receipt is for tree leaf ${r.info.leafIndex}, the record is leaf ${leafIndex}`,
    };
  return {
    ok: true,
    profile: "rfc9162",
    mmrIndex,
    leaf: hex(leaf),
    peak: hex(r.root),
    issuer: r.info.issuer,
    subject: r.info.subject,
    treeSize: r.info.treeSize,
  };
}
