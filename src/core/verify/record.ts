import type { KeyObject } from "node:crypto";
import { decodeReceipt, verifyReceipt } from "../cose/index.js";
import {
  type AssetEventRecord,
  type AssetFreeLeafSchema,
  assetEventLeafHash,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
  assetFreeLeafSchemas,
  parseIdTimestamp,
} from "../ledger/index.js";

/** The outcome of an offline check: what was proven, or the first reason it failed. */
export type Verdict =
  | { ok: true; mmrIndex: number; leaf: string; peak: string; issuer: string; subject: string }
  | { ok: false; reason: string };

/** A record as the API returns it: an asset event, or an asset-free event. */
export type ApiRecord = Record<string, unknown>;

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

function commitOf(record: ApiRecord): { index: string; idtimestamp: string } | undefined {
  const entry = record.merklelog_entry as { commit?: { index?: string; idtimestamp?: string } } | undefined;
  const c =
    entry?.commit ?? (record.merklelog_commit as { index?: string; idtimestamp?: string } | undefined);
  return c?.idtimestamp ? { index: String(c.index ?? ""), idtimestamp: c.idtimestamp } : undefined;
}

/** The leaf hash a record commits to, recomputed from its JSON alone. */
export function leafOfRecord(record: ApiRecord, schema: AssetFreeLeafSchema = "eventsv1"): Uint8Array {
  const commit = commitOf(record);
  if (!commit) throw new Error("the record has no merklelog commit (it is not committed yet)");
  const { id } = parseIdTimestamp(commit.idtimestamp);
  const identity = String(record.identity ?? "");
  if (identity.startsWith("events/")) {
    const tenant = String(record.origin_tenant ?? "").replace(/^tenant\//, "");
    const e = record as { attributes: Record<string, unknown>; trails?: string[]; event_type?: string };
    return assetFreeEventLeafHash(
      { attributes: e.attributes, trails: e.trails ?? null, event_type: e.event_type ?? "" },
      id,
      assetFreeExtraBytes(tenant),
      schema,
    );
  }
  return assetEventLeafHash(record as unknown as AssetEventRecord, id);
}

/**
 * The leaves a record may commit to, newest schema first: an asset-free event with an
 * `event_type` committed before 2026-11-24 was hashed with its keys sorted.
 */
function candidateLeaves(record: ApiRecord): Uint8Array[] {
  const identity = String(record.identity ?? "");
  if (!identity.startsWith("events/")) return [leafOfRecord(record)];
  const e = record as { event_type?: string };
  return assetFreeLeafSchemas({ event_type: e.event_type ?? "" }).map((schema) =>
    leafOfRecord(record, schema),
  );
}

/**
 * Checks a record against its receipt with nothing but the service's public keys: the leaf
 * is recomputed from the record, the path leads to a peak, and the seal key signed that peak.
 */
export function verifyRecordReceipt(
  record: ApiRecord,
  receipt: Uint8Array,
  keys: Map<string, KeyObject> | KeyObject,
): Verdict {
  let leaves: Uint8Array[];
  try {
    leaves = candidateLeaves(record);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
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
    return { ok: false, reason: `receipt is for log entry ${mmrIndex}, the record says ${commit.index}` };
  const tried = leaves.map((leaf) => ({ leaf, r: verifyReceipt(receipt, leaf, key) }));
  const hit = tried.find((t) => t.r.ok) ?? tried[0];
  if (!hit) return { ok: false, reason: "no leaf to verify" };
  const { leaf, r } = hit;
  if (!r.ok) return r;
  return {
    ok: true,
    mmrIndex,
    leaf: hex(leaf),
    peak: hex(r.peak),
    issuer: r.info.issuer,
    subject: r.info.subject,
  };
}
