import { createHash } from "node:crypto";
import { bencode } from "./bencode.js";
import { type AssetEventRecord, FIELDS_V3, pickFields } from "./event-fields.js";
import { goJson } from "./go-json.js";
import { idTimestampBytes } from "./idtimestamp.js";

const PLAIN_LEAF = Uint8Array.of(0);

/** Asset event leaf (log v0): SHA-256(0x00 ‖ idtimestamp ‖ bencode(v3 fields, public identities as private)). */
export function assetEventLeafHash(event: AssetEventRecord, idtimestamp: bigint): Uint8Array {
  const body = bencode(pickFields(event, FIELDS_V3, true));
  return new Uint8Array(
    createHash("sha256").update(PLAIN_LEAF).update(idTimestampBytes(idtimestamp)).update(body).digest(),
  );
}

/** The serialised content of an asset-free event: a bencode byte string of Go JSON of {attributes, trails, event_type?}. */
export function assetFreeEventContent(event: {
  attributes: Record<string, unknown>;
  trails?: string[] | null;
  event_type?: string;
}): Uint8Array {
  const doc: Record<string, unknown> = { attributes: event.attributes, trails: event.trails ?? null };
  if (event.event_type) doc.event_type = event.event_type;
  return bencode(Buffer.from(goJson(doc), "utf8"));
}

/** Asset-free event leaf (log v1): SHA-256(0x00 ‖ extraBytes(24) ‖ idtimestamp ‖ serialised content). */
export function assetFreeEventLeafHash(
  event: { attributes: Record<string, unknown>; trails?: string[] | null; event_type?: string },
  idtimestamp: bigint,
  extraBytes: Uint8Array,
): Uint8Array {
  if (extraBytes.length !== 24) throw new RangeError("extraBytes must be 24 bytes");
  return new Uint8Array(
    createHash("sha256")
      .update(PLAIN_LEAF)
      .update(extraBytes)
      .update(idTimestampBytes(idtimestamp))
      .update(assetFreeEventContent(event))
      .digest(),
  );
}

/** extraBytes of an asset-free event's trie entry: 0x01 (app domain) ‖ tenant uuid (16 bytes) ‖ 7 zero bytes. */
export function assetFreeExtraBytes(tenantUuid: string): Uint8Array {
  const out = new Uint8Array(24);
  out[0] = 1;
  out.set(Buffer.from(tenantUuid.replace(/-/g, ""), "hex"), 1);
  return out;
}
