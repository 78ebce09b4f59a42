/**
 * A record as the API answers it, read: its commit, its kind (by identity), its log index, the
 * attributes its leaf signs, and the leaves it may commit to (the leaf rules, src/formats/record/leaf.ts).
 */
import { parseIdTimestamp } from "../ledger/idtimestamp.js";
import type { HashedAssetEvent } from "./hashed-fields.js";
import {
  type AssetFreeLeafSchema,
  assetEventLeafHash,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
  assetFreeLeafSchemas,
} from "./leaf.js";

/** A record as the API returns it: an asset event, or an asset-free event. */
export type ApiRecord = Record<string, unknown>;

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
