// The index rebuilt from records, as the service builds it (docs/complete-trails.md): each record's
// entry number appended, in log order, to the list of every key it is filed under, each list
// committed under its key's position with its salt, and the trie's root compared with each
// revision's index root. Pure and synchronous: the records, positions and revisions are given.
import { toHex } from "../../formats/crypto/bytes.js";
import { type Sha256, sha256 } from "../../formats/crypto/sha256.js";
import { sameHash } from "../../formats/rfc9162/hash.js";
import { VindexTrie } from "../../formats/vindex/trie.js";
import { appendIndex, emptyValue, type ValueChain, valueCommitment } from "../../formats/vindex/value.js";

/** A record as the replay takes it: its log entry number and its keys. */
export interface FiledRecord {
  entry: number;
  keys: readonly string[];
}

/** Where a key sits and the salt of its value: the two halves of its VRF output. */
export interface KeyPlace {
  position: Uint8Array;
  salt: Uint8Array;
}

/** What the replay compares: each revision's log size and index root, in order. */
export interface RevisionRoot {
  seq: number;
  logSize: number;
  indexRoot: Uint8Array;
}

export type ReplayResult =
  | { ok: true; records: number; revisions: number; logSize: number; keys: number }
  | {
      ok: false;
      /** The first revision whose index root is not the rebuilt one. */
      seq: number;
      logSize: number;
      /** The log sizes of the last revision that matched (0: none) and of this one. */
      since: number;
      /** The keys whose lists changed between the two: one of them, or the root itself, differs. */
      keys: string[];
      rebuilt: string;
      published: string;
    };

interface KeyState {
  key: string;
  position: Uint8Array;
  salt: Uint8Array;
  chain: ValueChain;
}

/**
 * Replays `records` (sorted by entry number, each entry once) and compares the rebuilt index root
 * with each revision's, stopping at the first that differs: every later root differs too. Records
 * past the last revision's log size are not filed. `places` must hold every key of the records.
 */
export function replayIndex(
  records: readonly FiledRecord[],
  places: ReadonlyMap<string, KeyPlace>,
  revisions: readonly RevisionRoot[],
  hash: Sha256 = sha256,
  progress: (done: number, total: number) => void = () => undefined,
): ReplayResult {
  const trie = new VindexTrie();
  const states = new Map<string, KeyState>();
  // Keys appended to since the last root: each is committed once per revision, not once per record.
  const dirty = new Set<KeyState>();
  const stateOf = (key: string): KeyState => {
    let s = states.get(key);
    if (!s) {
      const place = places.get(key);
      if (!place) throw new Error(`no position is known for the key ${key}`);
      s = { key, position: place.position, salt: place.salt, chain: emptyValue() };
      states.set(key, s);
    }
    return s;
  };
  let at = 0;
  let filed = 0;
  let since = 0;
  for (const [i, revision] of revisions.entries()) {
    for (; at < records.length && (records[at] as FiledRecord).entry < revision.logSize; at++) {
      const r = records[at] as FiledRecord;
      for (const key of r.keys) {
        const s = stateOf(key);
        s.chain = appendIndex(s.chain, r.entry, hash);
        dirty.add(s);
      }
      filed++;
    }
    for (const s of dirty) trie.set(s.position, valueCommitment(s.salt, s.chain, hash));
    const root = trie.root();
    if (!sameHash(root, revision.indexRoot))
      return {
        ok: false,
        seq: revision.seq,
        logSize: revision.logSize,
        since,
        keys: [...dirty].map((s) => s.key).sort(),
        rebuilt: toHex(root),
        published: toHex(revision.indexRoot),
      };
    dirty.clear();
    since = revision.logSize;
    progress(i + 1, revisions.length);
  }
  return { ok: true, records: filed, revisions: revisions.length, logSize: since, keys: states.size };
}
