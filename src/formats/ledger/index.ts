export { bencode } from "./bencode.js";

export { idTimestampToMillis, parseIdTimestamp } from "./idtimestamp.js";
export { simpleHashAnchor } from "./simplehash.js";
export { tlogLeafData } from "./tlog-leaf.js";
export { trieKey } from "./trie-key.js";
