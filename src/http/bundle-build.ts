import { BUNDLE_FORMAT, BUNDLE_VERSION } from "../formats/bundle/format.js";
import { decodeSeal } from "../formats/cose/seal.js";
import { commitOf, logIndexOf } from "../formats/record/api-record.js";
import { canonicalKey } from "../formats/vindex/map.js";
import { LookupError, type PublicApi, type PublicRecord } from "../lookup/public-api.js";
import {
  type BundleCheckpoint,
  type BundleLog,
  type BundleRecord,
  type EvidenceBundle,
  verifyRecordReceipt,
} from "../verify/index.js";
import { lookupHolds, missingFreeEvents, subjectLookup } from "./bundle-index.js";

/** A record's receipt as its service gives it, with what the service states of it. */
export interface SourcedReceipt {
  receipt: Uint8Array;
  /** `tenant/<uuid>`: the log the receipt is of. */
  log: string;
  /** MMR receipts: the entry's index, and the peak (hex) the receipt is signed over. */
  mmrIndex?: number;
  peak?: string;
  /** RFC 9162 receipts: the tree size the receipt is signed over. */
  treeSize?: number;
}

/**
 * Where the service gathering its own evidence takes the records' receipts from, many at a time
 * (the evidence route: a few reads per hundreds of records instead of a request per receipt).
 * By record identity; a record left out has none yet (409 alone). What it states is not
 * checked as it is gathered: the bundle's verdict checks every receipt, once.
 */
export interface ReceiptSource {
  receipts(identities: string[], profile: "mmr" | "rfc9162"): Promise<Map<string, SourcedReceipt>>;
}

/** What to gather: an asset and its events, or every event recording one vCon (its subject). */
export type BundleSubject =
  | { kind: "asset"; uuid: string }
  | { kind: "vcon"; uuid: string; holder?: string | undefined };

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** Log order: the commit's MMR index, uncommitted records last, in the order the service gave them. */
function logOrder(records: PublicRecord[]): PublicRecord[] {
  const index = (r: PublicRecord) => logIndexOf(commitOf(r)?.index) ?? Number.MAX_SAFE_INTEGER;
  return records
    .map((r, i) => ({ r, i }))
    .sort((a, b) => index(a.r) - index(b.r) || a.i - b.i)
    .map((x) => x.r);
}

async function recordsOf(api: PublicApi, subject: BundleSubject) {
  if (subject.kind === "asset") {
    const asset = await api.json<PublicRecord>(`/archivist/v2/assets/${subject.uuid}`);
    const events = await api.list(`/archivist/v2/assets/${subject.uuid}/events`, "events");
    return { assets: [asset], events: logOrder(events), id: `assets/${subject.uuid}` };
  }
  const id = `vcon://${subject.uuid}`;
  const events = await api.list(
    `/archivist/v2/assets/-/events?event_attributes.subject=${encodeURIComponent(id)}`,
    "events",
  );
  const uuids = [...new Set(events.map((e) => String(e.identity).split("/")[1] ?? ""))].filter(Boolean);
  const assets = [];
  for (const uuid of uuids) assets.push(await api.json<PublicRecord>(`/archivist/v2/assets/${uuid}`));
  return { assets, events: logOrder(events), id };
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

/**
 * The log's published C2SP checkpoint (the newest witnessed one, with its cosignatures) and key,
 * and RFC 9162 consistency proofs between every receipt's tree size and the checkpoint's, in
 * whichever direction; none when the log has no checkpoint.
 */
async function checkpointOf(
  api: PublicApi,
  tenant: string,
  receiptSizes: Set<number>,
): Promise<BundleCheckpoint | undefined> {
  const note = await api.get(`/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`);
  const key = await api.get(`/archivist/v1/merklelogs/${tenant}/tlog/key`);
  // Over the rate limit is not "no checkpoint": the bundle would silently lack it.
  for (const r of [note, key])
    if (r.status === 429) throw new LookupError("the checkpoint answered 429", 429);
  if (note.status !== 200 || key.status !== 200) return undefined;
  const size = Number(text(note.bytes).split("\n")[1]);
  const consistency = [];
  // Receipts cover the newest seal, the published checkpoint is the newest witnessed one: a
  // receipt's tree may be either side of it, so the proof runs from the smaller to the larger.
  for (const other of receiptSizes) {
    if (other === size || other < 1 || size < 1) continue;
    const [from, to] = other < size ? [other, size] : [size, other];
    const p = await api.json<{ proof: string[] }>(
      `/archivist/v1/merklelogs/${tenant}/consistency?profile=rfc9162&from=${from}&to=${to}`,
    );
    consistency.push({ from, to, proof: p.proof });
  }
  return { note: text(note.bytes), key: text(key.bytes).trim(), consistency };
}

type Keys = Awaited<ReturnType<PublicApi["keys"]>>;
interface MmrReceipt {
  receipt: Uint8Array;
  log: string;
  mmrIndex: number;
  peak: string;
}
interface TreeReceipt {
  receipt: Uint8Array;
  log: string;
  treeSize: number;
}

/** A record's MMR receipt fetched alone, checked as it comes; undefined while it has none (409). */
async function fetchedMmr(api: PublicApi, record: PublicRecord, keys: Keys): Promise<MmrReceipt | undefined> {
  const identity = String(record.identity);
  const r = await api.get(`/archivist/v1/receipts/${identity}`);
  if (r.status === 409) return undefined;
  if (r.status !== 200) throw new LookupError(`the receipt of ${identity} answered ${r.status}`, r.status);
  const v = verifyRecordReceipt(record, r.bytes, keys);
  if (!v.ok) throw new LookupError(`the service's receipt for ${identity} does not verify: ${v.reason}`);
  return { receipt: r.bytes, log: v.subject, mmrIndex: v.mmrIndex, peak: v.peak };
}

/** A record's RFC 9162 receipt fetched alone, when it has one that verifies. */
async function fetchedTree(
  api: PublicApi,
  record: PublicRecord,
  keys: Keys,
): Promise<TreeReceipt | undefined> {
  const identity = String(record.identity);
  const t = await api.get(`/archivist/v1/receipts/${identity}?profile=rfc9162`);
  if (t.status === 429) throw new LookupError(`the RFC 9162 receipt of ${identity} answered 429`, 429);
  if (t.status !== 200) return undefined;
  const v = verifyRecordReceipt(record, t.bytes, keys);
  return v.ok && v.profile === "rfc9162" && v.treeSize !== undefined
    ? { receipt: t.bytes, log: v.subject, treeSize: v.treeSize }
    : undefined;
}

function sourcedMmr(r: SourcedReceipt | undefined): MmrReceipt | undefined {
  return r && r.mmrIndex !== undefined && r.peak !== undefined
    ? { receipt: r.receipt, log: r.log, mmrIndex: r.mmrIndex, peak: r.peak }
    : undefined;
}

function sourcedTree(r: SourcedReceipt | undefined): TreeReceipt | undefined {
  return r?.treeSize === undefined ? undefined : { receipt: r.receipt, log: r.log, treeSize: r.treeSize };
}

const tenantOf = (log: string) => log.replace(/^tenant\//, "");

/** Adds `value` to the set kept under `key`, making the set when it is the key's first. */
function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  (map.get(key) ?? map.set(key, new Set()).get(key))?.add(value);
}

/**
 * A log's seals as the bundle reads them, each fetched and decoded once: every record of a log
 * looks through the same seals, and a seal both placed and shipped would otherwise be read twice.
 */
interface SealReader {
  /** The MMR sizes the log has seals at, oldest first. */
  sizes(log: string): Promise<number[]>;
  /** The seal at one size, as the service serves it. */
  bytes(log: string, size: number): Promise<Uint8Array>;
  /** The seal's peaks (hex). */
  peaks(log: string, size: number): Promise<Set<string>>;
}

/** `make(key)` once per key: later asks share the first answer (a failure is asked again). */
function memoized<T>(make: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const kept = new Map<string, Promise<T>>();
  return (key) => {
    let v = kept.get(key);
    if (!v) {
      v = make(key);
      kept.set(key, v);
      v.catch(() => kept.delete(key));
    }
    return v;
  };
}

function sealReader(api: PublicApi): SealReader {
  const sizes = memoized(async (log) => {
    const path = `/archivist/v1/merklelogs/${tenantOf(log)}/seals`;
    return (await api.json<{ mmr_sizes: number[] }>(path)).mmr_sizes;
  });
  const bytes = memoized(async (at) => {
    const [log, size] = at.split("@") as [string, string];
    const r = await api.get(`/archivist/v1/merklelogs/${tenantOf(log)}/seals/latest?mmr_size=${size}`);
    if (r.status !== 200) throw new LookupError(`seal ${size} of ${log} answered ${r.status}`, r.status);
    return r.bytes;
  });
  const peaks = memoized(async (at) => new Set(decodeSeal(await bytes(at)).peaks.map(hex)));
  return {
    sizes: (log) => sizes(log),
    bytes: (log, size) => bytes(`${log}@${size}`),
    peaks: (log, size) => peaks(`${log}@${size}`),
  };
}

/** The service's key set, as served (the bundle ships its bytes) and as parsed keys. */
async function serviceKeys(api: PublicApi): Promise<{ bytes: Uint8Array; keys: Keys }> {
  const keySet = await api.get("/.well-known/scitt-keys");
  if (keySet.status !== 200)
    throw new LookupError(`GET /.well-known/scitt-keys answered ${keySet.status}`, keySet.status);
  return { bytes: keySet.bytes, keys: await api.keys() };
}

/** What the records' receipts need from the logs: which seals, and which RFC 9162 tree sizes. */
interface Receipted {
  records: BundleRecord[];
  /** Per log: the seals the bundle needs (by size). */
  wanted: Map<string, Set<number>>;
  /** Per log: the RFC 9162 tree sizes the records' rfc9162 receipts sign. */
  treeSizes: Map<string, Set<number>>;
}

/**
 * Each record with its receipts, taken from `source` many at a time when the service gathers
 * its own evidence, else fetched one by one; and, per log, the seals they lead into.
 */
async function receiptedRecords(
  api: PublicApi,
  events: PublicRecord[],
  keys: Keys,
  seals: SealReader,
  source: ReceiptSource | undefined,
): Promise<Receipted> {
  const out: Receipted = { records: [], wanted: new Map(), treeSizes: new Map() };
  const identities = events.map((r) => String(r.identity));
  const sourced = source && {
    mmr: await source.receipts(identities, "mmr"),
    rfc9162: await source.receipts(identities, "rfc9162"),
  };
  for (const record of events) {
    const entry: BundleRecord = { record, receipts: [] };
    out.records.push(entry);
    const identity = String(record.identity);
    const mmr = sourced ? sourcedMmr(sourced.mmr.get(identity)) : await fetchedMmr(api, record, keys);
    // Not committed or not sealed yet: the bundle shows the record without a receipt.
    if (!mmr) continue;
    const sizes = await seals.sizes(mmr.log);
    const into = await sealHolding(seals, sizes, mmr);
    if (into === undefined)
      throw new LookupError(`no seal of ${mmr.log} holds the peak of ${identity}'s receipt`);
    entry.receipts.push({ profile: "mmr", log: mmr.log, mmr_size: into, receipt: b64(mmr.receipt) });
    addTo(out.wanted, mmr.log, into);
    // The same entry in the log's RFC 9162 tree, the one its C2SP checkpoints sign.
    const t = sourced ? sourcedTree(sourced.rfc9162.get(identity)) : await fetchedTree(api, record, keys);
    if (t) {
      entry.receipts.push({ profile: "rfc9162", log: t.log, tree_size: t.treeSize, receipt: b64(t.receipt) });
      addTo(out.treeSizes, t.log, t.treeSize);
    }
    // The seal that first covered the record, so a verifier sees it sealed from the start.
    const first = sizes.find((s) => s > mmr.mmrIndex);
    if (first !== undefined) addTo(out.wanted, mmr.log, first);
  }
  return out;
}

/**
 * The seal a receipt leads into: the one that was latest when it was made, which is the newest
 * holding its peak.
 */
async function sealHolding(seals: SealReader, sizes: number[], mmr: MmrReceipt): Promise<number | undefined> {
  for (const size of [...sizes].reverse().filter((s) => s > mmr.mmrIndex)) {
    if ((await seals.peaks(mmr.log, size)).has(mmr.peak)) return size;
  }
  return undefined;
}

/**
 * One log's evidence: the seals wanted, consistency proofs from each to the latest of them, and
 * the log's published checkpoint with proofs to the receipts' tree sizes.
 */
async function logEvidence(
  api: PublicApi,
  seals: SealReader,
  log: string,
  sizeSet: Set<number>,
  treeSizes: Set<number>,
): Promise<BundleLog> {
  const sizes = [...sizeSet].sort((a, b) => a - b);
  const latest = sizes.at(-1) as number;
  const tenant = tenantOf(log);
  const consistency = [];
  for (const from of sizes.slice(0, -1)) {
    const p = await api.json<{ paths: string[][] }>(
      `/archivist/v1/merklelogs/${tenant}/consistency?from=${from}&to=${latest}`,
    );
    consistency.push({ from, to: latest, paths: p.paths });
  }
  const shipped = [];
  for (const size of sizes) shipped.push({ mmr_size: size, seal: b64(await seals.bytes(log, size)) });
  const checkpoint = await checkpointOf(api, tenant, treeSizes);
  return {
    log,
    profile: "mmr",
    seals: shipped,
    consistency,
    ...(checkpoint ? { checkpoints: [checkpoint] } : {}),
  };
}

/**
 * Gathers an evidence bundle through the API (the caller's token decides what it may read):
 * the records, their receipts, for each log the seal that first covered each record and the
 * latest seal with consistency proofs between them, the service's keys, and the index's lookup
 * of the subject's key when the caller may have it and it agrees with what was gathered.
 */
export async function buildBundle(
  api: PublicApi,
  subject: BundleSubject,
  now = new Date(),
  source?: ReceiptSource,
): Promise<EvidenceBundle> {
  const key = canonicalKey(subject.kind === "vcon" ? `vcon://${subject.uuid}` : `assets/${subject.uuid}`);
  // Asked before the records are listed: the log only grows, so every entry below its log size
  // is among the records listed after it.
  const lookup = key === undefined ? undefined : await subjectLookup(api, key);
  const { assets, events: listed, id } = await recordsOf(api, subject);
  const free = lookup && subject.kind === "vcon" ? await missingFreeEvents(api, lookup, listed) : [];
  const events = free.length > 0 ? logOrder([...listed, ...free]) : listed;
  if (events.length === 0) throw new LookupError(`${id} has no records you may read`);
  const keySet = await serviceKeys(api);
  const seals = sealReader(api);
  const { records, wanted, treeSizes } = await receiptedRecords(api, events, keySet.keys, seals, source);
  const index = lookup && wanted.has(lookup.log) && lookupHolds(lookup, events) ? [lookup] : [];
  // The lookup's log size is tied to the bundle's checkpoint like a receipt's tree size.
  for (const l of index) addTo(treeSizes, l.log, l.revision.log_size);
  const logs: BundleLog[] = [];
  for (const [log, sizeSet] of wanted)
    logs.push(await logEvidence(api, seals, log, sizeSet, treeSizes.get(log) ?? new Set()));
  return {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    created_at: now.toISOString(),
    service: api.base,
    subject: {
      kind: subject.kind,
      id,
      ...(subject.kind === "vcon" && subject.holder ? { holder: subject.holder } : {}),
    },
    assets,
    records,
    logs,
    keys: { cose_key_set: b64(keySet.bytes) },
    ...(index.length > 0 ? { index } : {}),
  };
}
