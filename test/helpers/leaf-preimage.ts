import { idTimestampBytes, parseIdTimestamp } from "../../src/formats/ledger/idtimestamp.js";
import { bencode } from "../../src/formats/ledger/index.js";
import { pickFields } from "../../src/formats/record/hashed-fields.js";
import {
  assetFreeEventContent,
  assetFreeExtraBytes,
  FIELDS_V3,
  type HashedAssetEvent,
} from "../../src/formats/record/index.js";

/**
 * The bytes whose SHA-256 is a record's MMR leaf, which is also its RFC 9162 tree leaf data:
 * what the fourth hostile pass injected as `attributes.payload` into a changed record.
 */
export function leafPreimage(r: Record<string, unknown>): Uint8Array {
  const c = ((r.merklelog_entry as { commit?: { idtimestamp: string } } | undefined)?.commit ??
    r.merklelog_commit) as { idtimestamp: string };
  const id = idTimestampBytes(parseIdTimestamp(c.idtimestamp).id);
  if (String(r.identity).startsWith("events/"))
    return Buffer.concat([
      Uint8Array.of(0),
      assetFreeExtraBytes(String(r.origin_tenant).replace("tenant/", "")),
      id,
      assetFreeEventContent(r as { attributes: Record<string, unknown> }),
    ]);
  return Buffer.concat([Uint8Array.of(0), id, bencode(pickFields(r as HashedAssetEvent, FIELDS_V3, true))]);
}
