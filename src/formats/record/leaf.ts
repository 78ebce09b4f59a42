import { fromHex, utf8 } from "../crypto/bytes.js";
import { type AsciiLeafSha256, type Sha256, sha256 } from "../crypto/sha256.js";
import { isoTime } from "../ids.js";
import { bencode, bencodeText, isAsciiText } from "../ledger/bencode.js";
import { goJson } from "../ledger/go-json.js";
import { idTimestampBytes } from "../ledger/idtimestamp.js";
import { type AssetEventSource, assetEventRecord } from "./asset-event.js";
import { FIELDS_V3, FREE_EVENT_HASHED_FIELDS, type HashedAssetEvent, pickFields } from "./hashed-fields.js";

const PLAIN_LEAF = Uint8Array.of(0);

/**
 * Asset event leaf (log v0): SHA-256(0x00 ‖ idtimestamp ‖ bencode(v3 fields, public identities as
 * private)). The committer passes node:crypto's SHA-256 (`hash`); verifiers take the portable one.
 */
export function assetEventLeafHash(
  event: HashedAssetEvent,
  idtimestamp: bigint,
  hash: Sha256 = sha256,
): Uint8Array {
  return hash(PLAIN_LEAF, idTimestampBytes(idtimestamp), bencode(pickFields(event, FIELDS_V3, true)));
}

/** A v3 field of the leaf: its bencoded key (keys in byte order) and its value as the record writes it. */
type RowField = readonly [string, (row: AssetEventSource, committed: string) => unknown];

/**
 * FIELDS_V3 in bencode's key order, each read from a stored row as `assetEventRecord` maps it
 * (identities in their private form, times as RFC 3339, absent values as ""). The unit tests
 * hold this to the record's path for any row.
 */
const ROW_FIELDS: readonly RowField[] = (
  [
    ["asset_attributes", (r) => r.asset_attributes],
    ["behaviour", (r) => r.behaviour],
    ["event_attributes", (r) => r.event_attributes],
    ["identity", (r) => `assets/${r.asset_id}/events/${r.id}`],
    ["operation", (r) => r.operation],
    ["principal_accepted", (r) => r.principal_accepted],
    ["principal_declared", (r) => r.principal_declared],
    ["tenant_identity", (r) => `tenant/${r.tenant_id}`],
    ["timestamp_accepted", (r) => isoTime(r.timestamp_accepted)],
    ["timestamp_committed", (_r, committed) => committed],
    ["timestamp_declared", (r) => isoTime(r.timestamp_declared)],
  ] satisfies RowField[]
).map(([k, read]): RowField => [`${k.length}:${k}`, read]);

/**
 * The leaf of a stored asset event committed at `committed`: the same bytes as
 * `assetEventLeafHash(assetEventRecord({ ...row, timestamp_committed: committed }), …)`, encoded
 * straight from the row. The committer takes a leaf per event, and the record it built for
 * each (trust fields, identities, the nine fields the leaf does not read) and the fields picked
 * from it cost a fifth of the leaf. A row holding a value only the generic encoder handles or
 * refuses takes the record's path.
 */
export function assetEventRowLeafHash(
  row: AssetEventSource,
  committed: Date,
  idtimestamp: bigint,
  hash: Sha256 = sha256,
  asciiLeaf: AsciiLeafSha256 = portableAsciiLeaf(hash),
): Uint8Array {
  const at = isoTime(committed);
  const quick = rowText(row, at, false);
  if (quick === undefined)
    return assetEventLeafHash(
      assetEventRecord({ ...row, timestamp_committed: committed }),
      idtimestamp,
      hash,
    );
  // Each string was taken for ASCII: so it is when the whole text is, else it is made again exactly.
  return (
    asciiLeaf(idtimestamp, quick) ??
    hash(PLAIN_LEAF, idTimestampBytes(idtimestamp), utf8(rowText(row, at, true) as string))
  );
}

/** `AsciiLeafSha256` made of any SHA-256. */
const portableAsciiLeaf =
  (hash: Sha256): AsciiLeafSha256 =>
  (idtimestamp, text) =>
    isAsciiText(text) ? hash(PLAIN_LEAF, idTimestampBytes(idtimestamp), utf8(text)) : undefined;

/** The row's v3 fields as bencode text (`bencodeText`'s `exact`), or undefined for a value it cannot write. */
function rowText(row: AssetEventSource, committed: string, exact: boolean): string | undefined {
  let text: string | undefined = "d";
  for (const [key, read] of ROW_FIELDS) {
    text = bencodeText(`${text}${key}`, read(row, committed) ?? "", exact);
    if (text === undefined) return undefined;
  }
  return `${text}e`;
}

type AssetFreeContent = {
  attributes: Record<string, unknown>;
  trails?: string[] | null;
  event_type?: string;
};

/** The hashed fields' values; Go omits an empty `event_type` (omitempty). */
function hashedContent(event: AssetFreeContent): Array<[string, unknown]> {
  const values = { attributes: event.attributes, trails: event.trails ?? null, event_type: event.event_type };
  return FREE_EVENT_HASHED_FIELDS.filter((f) => f !== "event_type" || values.event_type).map((f) => [
    f,
    values[f],
  ]);
}

/**
 * The serialised content of an asset-free event, as DataTrails' eventsv1 serialisation writes it:
 * a bencode byte string of Go's JSON of its struct, whose fields come in declaration order
 * (`attributes`, `trails`, `event_type` when not empty); maps inside are sorted bytewise.
 */
export function assetFreeEventContent(event: AssetFreeContent): Uint8Array {
  const json = hashedContent(event)
    .map(([f, v]) => `"${f}":${goJson(v)}`)
    .join(",");
  return bencode(utf8(`{${json}}`));
}

/**
 * The content as this service serialised it before 2026-11-24: every key sorted, which put
 * `event_type` before `trails`. Leaves of events with an `event_type` committed until then were
 * made of it; verifiers try it when the eventsv1 leaf does not verify (`leafSchema` says which).
 */
export function legacySortedAssetFreeEventContent(event: AssetFreeContent): Uint8Array {
  return bencode(utf8(goJson(Object.fromEntries(hashedContent(event)))));
}

/** Which serialisation of an asset-free event a leaf was made of. */
export type AssetFreeLeafSchema = "eventsv1" | "sorted-2026-11";

/** Asset-free event leaf (log v1): SHA-256(0x00 ‖ extraBytes(24) ‖ idtimestamp ‖ serialised content). */
export function assetFreeEventLeafHash(
  event: AssetFreeContent,
  idtimestamp: bigint,
  extraBytes: Uint8Array,
  schema: AssetFreeLeafSchema = "eventsv1",
  hash: Sha256 = sha256,
): Uint8Array {
  if (extraBytes.length !== 24) throw new RangeError("extraBytes must be 24 bytes");
  const content =
    schema === "eventsv1" ? assetFreeEventContent(event) : legacySortedAssetFreeEventContent(event);
  return hash(PLAIN_LEAF, extraBytes, idTimestampBytes(idtimestamp), content);
}

/** The schemas a verifier tries for an event, newest first: both differ only when it has an event_type. */
export function assetFreeLeafSchemas(event: { event_type?: string }): AssetFreeLeafSchema[] {
  return event.event_type ? ["eventsv1", "sorted-2026-11"] : ["eventsv1"];
}

/** extraBytes of an asset-free event's trie entry: 0x01 (app domain) ‖ tenant uuid (16 bytes) ‖ 7 zero bytes. */
export function assetFreeExtraBytes(tenantUuid: string): Uint8Array {
  const out = new Uint8Array(24);
  out[0] = 1;
  out.set(fromHex(tenantUuid.replace(/-/g, "")).subarray(0, 16), 1);
  return out;
}
