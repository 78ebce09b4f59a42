/*
 * `archivist index rebuild`'s work past HTTP (issue 72's measure: rebuilding the index ≥ 20,000
 * records/s): reading each record (its leaf recomputed from its JSON, its keys) and replaying them
 * into the index with the root at every revision compared, on N synthetic records shaped as a
 * conserver writes them (a vCon asset with ten events, each filed under its asset and its vCon; one
 * record in ten a registered statement's, filed under its issuer and subject too), with a revision
 * every R records. Positions are random: their VRF proofs are the service's answers, not timed here.
 *
 *   npx tsx bench/index-rebuild.ts [N (200000)] [R (1000)]
 */
import { randomBytes } from "node:crypto";
import { nodeSha256 } from "../src/core/node/crypto.js";
import type { Sha256 } from "../src/formats/crypto/sha256.js";
import { sha256 } from "../src/formats/crypto/sha256.js";
import { mmrIndexOfLeaf } from "../src/formats/mmr/indices.js";
import type { ApiRecord } from "../src/formats/record/api-record.js";
import {
  appendIndex,
  emptyValue,
  type ValueChain,
  VindexTrie,
  valueCommitment,
} from "../src/formats/vindex/index.js";
import { recordIndexKeys } from "../src/formats/vindex/map.js";
import {
  type FiledRecord,
  type KeyPlace,
  type RevisionRoot,
  readRecord,
  replayIndex,
} from "../src/verify/index.js";

const N = Number(process.argv[2] ?? 200_000);
const EVERY = Number(process.argv[3] ?? 1_000);
const TENANT = "6c5a8c0e-2d8f-4e7a-9b1c-0a1b2c3d4e5f";

const uuid = (n: number) => `0190b6a1-0000-7000-8000-${n.toString(16).padStart(12, "0")}`;

/** Record `i` as the API returns an asset-free event: its leaf is recomputed from this JSON. */
function record(i: number): ApiRecord {
  const vcon = Math.floor(i / 10);
  const registered = i % 10 === 9;
  return {
    identity: `events/${uuid(i)}`,
    origin_tenant: `tenant/${TENANT}`,
    attributes: {
      arc_display_type: registered ? "vcon_created" : "vcon_updated",
      subject: `vcon://${uuid(vcon)}`,
      payload: "ab".repeat(32),
      payload_hash_alg: "SHA-256",
      ...(registered ? { scitt_issuer: `https://conserver-${vcon % 7}.example` } : {}),
    },
    trails: [`vcon://${uuid(vcon)}`],
    event_type: "",
    merklelog_commit: {
      index: String(mmrIndexOfLeaf(i)),
      idtimestamp: `01${(0x10000000 + i).toString(16).padStart(16, "0")}`,
    },
  };
}

/** The published roots: the index built straight from the formats' functions, a revision every EVERY records. */
function publishedRoots(filed: FiledRecord[], places: Map<string, KeyPlace>): RevisionRoot[] {
  const trie = new VindexTrie();
  const chains = new Map<string, ValueChain>();
  const out: RevisionRoot[] = [];
  for (const [i, r] of filed.entries()) {
    for (const k of r.keys) {
      const chain = appendIndex(chains.get(k) ?? emptyValue(), r.entry, nodeSha256);
      chains.set(k, chain);
      const p = places.get(k) as KeyPlace;
      trie.set(p.position, valueCommitment(p.salt, chain, nodeSha256));
    }
    if ((i + 1) % EVERY === 0 || i + 1 === filed.length)
      out.push({ seq: out.length, logSize: r.entry + 1, indexRoot: trie.root() });
  }
  return out;
}

function time<T>(fn: () => T): [T, number] {
  const start = performance.now();
  const out = fn();
  return [out, (performance.now() - start) / 1000];
}

const rate = (n: number, s: number) => `${Math.round(n / s).toLocaleString("en")} records/s`;

const records = Array.from({ length: N }, (_, i) => record(i));
const [read, readTime] = time(() =>
  records.map((r) => {
    const x = readRecord(r);
    if (x.kind !== "record") throw new Error(`record ${String(r.identity)} is not read`);
    return x.facts;
  }),
);
const filed: FiledRecord[] = read.map((f) => ({ entry: f.entry, keys: f.keys }));
const places = new Map<string, KeyPlace>();
for (const f of filed)
  for (const k of f.keys)
    if (!places.has(k)) places.set(k, { position: randomBytes(32), salt: randomBytes(32) });
const revisions = publishedRoots(filed, places);
console.log(
  `${N.toLocaleString("en")} records, ${places.size.toLocaleString("en")} keys, ${revisions.length} revisions (one every ${EVERY} records)`,
);
console.log(
  `  read (leaf from JSON, keys; portable SHA-256): ${readTime.toFixed(2)} s, ${rate(N, readTime)}`,
);
if (recordIndexKeys(records[9] as ApiRecord).length !== 3)
  throw new Error("a registered statement is filed under its vCon, its issuer and its subject");
for (const [name, hash] of [
  ["node:crypto", nodeSha256],
  ["portable (@noble)", sha256],
] as Array<[string, Sha256]>) {
  const [result, replay] = time(() => replayIndex(filed, places, revisions, hash));
  if (!result.ok) throw new Error(`the replay differs at ${result.logSize} entries`);
  console.log(`  replay and a root at every revision, ${name}: ${replay.toFixed(2)} s, ${rate(N, replay)}`);
}
