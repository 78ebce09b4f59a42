export { type Bencodable, BencodeError, bencode } from "./bencode.js";
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
export { simpleHashAnchor } from "./simplehash.js";
export { tlogLeafData } from "./tlog-leaf.js";
export { trieKey } from "./trie-key.js";
export { type CoveringSeal, committedTrust, confirmEntry, unequivocalEntry } from "./trust.js";
