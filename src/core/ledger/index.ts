export { type Bencodable, BencodeError, bencode } from "./bencode.js";
export { type AssetEventRecord, FIELDS_V1_V2, FIELDS_V3 } from "./event-fields.js";
export { goJson } from "./go-json.js";
export {
  epochOf,
  epochStartMs,
  formatIdTimestamp,
  IdTimestampGenerator,
  idTimestampBytes,
  idTimestampToMillis,
  parseIdTimestamp,
} from "./idtimestamp.js";
export {
  type AssetFreeLeafSchema,
  assetEventLeafHash,
  assetFreeEventContent,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
  assetFreeLeafSchemas,
  legacySortedAssetFreeEventContent,
} from "./leaf.js";
export { simpleHashAnchor } from "./simplehash.js";
export { tlogLeafData } from "./tlog-leaf.js";
export { trieKey } from "./trie-key.js";
export { type CoveringSeal, committedTrust, confirmEntry, unequivocalEntry } from "./trust.js";
