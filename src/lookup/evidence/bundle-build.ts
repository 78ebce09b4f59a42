import { BUNDLE_FORMAT, BUNDLE_VERSION, STATEMENT_RECEIPT_PROFILE } from "../../formats/bundle/format.js";
import { decodeSeal } from "../../formats/cose/seal.js";
import { toBase64, toHex } from "../../formats/crypto/bytes.js";
import { commitOf, logIndexOf } from "../../formats/record/api-record.js";
import { canonicalKey } from "../../formats/vindex/map.js";
import type { BundleCheckpoint, BundleLog, BundleRecord, EvidenceBundle } from "../../verify/index.js";
import { LookupError, type PublicRecord } from "../public-api.js";
import { type FreeEvents, lookupHolds, missingFreeEvents, subjectLookup } from "./bundle-index.js";
import type { EvidenceSource, SourcedReceipt } from "./source.js";

/** What to gather: an asset and its events, or every event recording one vCon (its subject). */
export type BundleSubject =
  | { kind: "asset"; uuid: string }
  | { kind: "vcon"; uuid: string; holder?: string | undefined };

/** Log order: the commit's MMR index, uncommitted records last, in the order the service gave them. */
function logOrder(records: PublicRecord[]): PublicRecord[] {
  const index = (r: PublicRecord) => logIndexOf(commitOf(r)?.index) ?? Number.MAX_SAFE_INTEGER;
  return records
    .map((r, i) => ({ r, i }))
    .sort((a, b) => index(a.r) - index(b.r) || a.i - b.i)
    .map((x) => x.r);
}

async function recordsOf(source: EvidenceSource, subject: BundleSubject) {
  if (subject.kind === "asset") {
    const asset = await source.asset(subject.uuid);
    const events = await source.assetEvents(subject.uuid);
    return { assets: [asset], events: logOrder(events), id: `assets/${subject.uuid}` };
  }
  const id = `vcon://${subject.uuid}`;
  const events = await source.subjectEvents(id);
  const uuids = [...new Set(events.map((e) => String(e.identity).split("/")[1] ?? ""))].filter(Boolean);
  const assets = [];
  for (const uuid of uuids) assets.push(await source.asset(uuid));
  return { assets, events: logOrder(events), id };
}

/** The published checkpoint, or undefined when the log has none (any refusal but the rate limit's). */
async function publishedCheckpoint(source: EvidenceSource, log: string) {
  try {
    return await source.checkpoint(log);
  } catch (err) {
    // Over the rate limit is not "no checkpoint": the bundle would silently lack it.
    if (err instanceof LookupError && err.status !== undefined && err.status !== 429) return undefined;
    throw err;
  }
}

/**
 * The log's published C2SP checkpoint (the newest witnessed one, with its cosignatures) and key,
 * and RFC 9162 consistency proofs between every receipt's tree size and the checkpoint's, in
 * whichever direction; none when the log has no checkpoint.
 */
async function checkpointOf(
  source: EvidenceSource,
  log: string,
  receiptSizes: Set<number>,
): Promise<BundleCheckpoint | undefined> {
  const published = await publishedCheckpoint(source, log);
  if (!published) return undefined;
  const size = Number(published.note.split("\n")[1]);
  const consistency = [];
  // Receipts cover the newest seal, the published checkpoint is the newest witnessed one: a
  // receipt's tree may be either side of it, so the proof runs from the smaller to the larger.
  for (const other of receiptSizes) {
    if (other === size || other < 1 || size < 1) continue;
    const [from, to] = other < size ? [other, size] : [size, other];
    consistency.push({ from, to, proof: await source.treeConsistency(log, from, to) });
  }
  return { note: published.note, key: published.key, consistency };
}

interface MmrReceipt {
  receipt: Uint8Array;
  log: string;
  mmrIndex: number;
  peak: string;
}

function sourcedMmr(r: SourcedReceipt | undefined): MmrReceipt | undefined {
  return r && r.mmrIndex !== undefined && r.peak !== undefined
    ? { receipt: r.receipt, log: r.log, mmrIndex: r.mmrIndex, peak: r.peak }
    : undefined;
}

/** Adds `value` to the set kept under `key`, making the set when it is the key's first. */
function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  (map.get(key) ?? map.set(key, new Set()).get(key))?.add(value);
}

/**
 * A log's seals as the bundle reads them, each read and decoded once: every record of a log
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

function sealReader(source: EvidenceSource): SealReader {
  const sizes = memoized((log) => source.sealSizes(log));
  const bytes = memoized((at) => {
    const [log, size] = at.split("@") as [string, string];
    return source.seal(log, Number(size));
  });
  const peaks = memoized(async (at) => new Set(decodeSeal(await bytes(at)).peaks.map(toHex)));
  return {
    sizes: (log) => sizes(log),
    bytes: (log, size) => bytes(`${log}@${size}`),
    peaks: (log, size) => peaks(`${log}@${size}`),
  };
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
 * Each record with its receipts, read many at a time, and, per log, the seals they lead into.
 * What the source states of a receipt is not checked here: the bundle's verdict checks every
 * receipt, once.
 */
async function receiptedRecords(
  source: EvidenceSource,
  events: PublicRecord[],
  seals: SealReader,
  { statements, unavailable }: Pick<FreeEvents, "statements" | "unavailable">,
): Promise<Receipted> {
  const out: Receipted = { records: [], wanted: new Map(), treeSizes: new Map() };
  const mmr = await source.receipts(events, "mmr");
  // The same entries in the log's RFC 9162 tree, the one its C2SP checkpoints sign.
  const tree = await source.receipts(
    events.filter((r) => mmr.has(String(r.identity))),
    "rfc9162",
  );
  for (const record of events) {
    const identity = String(record.identity);
    const statement = statements.get(identity);
    const missing = unavailable.get(identity);
    const entry: BundleRecord = {
      record,
      receipts: [],
      ...(statement ? { statement: toBase64(statement) } : {}),
      ...(missing !== undefined ? { statement_unavailable: missing } : {}),
    };
    out.records.push(entry);
    const m = sourcedMmr(mmr.get(identity));
    // Not committed or not sealed yet: the bundle shows the record without a receipt.
    if (!m) continue;
    const sizes = await seals.sizes(m.log);
    const into = await sealHolding(seals, sizes, m);
    if (into === undefined)
      throw new LookupError(`no seal of ${m.log} holds the peak of ${identity}'s receipt`);
    entry.receipts.push({ profile: "mmr", log: m.log, mmr_size: into, receipt: toBase64(m.receipt) });
    addTo(out.wanted, m.log, into);
    // Without its statement a registered statement's tree receipt (its leaf, the payload's hash) cannot be checked.
    const t = missing === undefined ? tree.get(identity) : undefined;
    if (t?.treeSize !== undefined) {
      entry.receipts.push({
        // Its tree leaf is the statement's payload hash: a profile of its own (format.ts says why).
        profile: statement ? STATEMENT_RECEIPT_PROFILE : "rfc9162",
        log: t.log,
        tree_size: t.treeSize,
        receipt: toBase64(t.receipt),
      });
      addTo(out.treeSizes, t.log, t.treeSize);
    }
    // The seal that first covered the record, so a verifier sees it sealed from the start.
    const first = sizes.find((s) => s > m.mmrIndex);
    if (first !== undefined) addTo(out.wanted, m.log, first);
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
  source: EvidenceSource,
  seals: SealReader,
  log: string,
  sizeSet: Set<number>,
  treeSizes: Set<number>,
): Promise<BundleLog> {
  const sizes = [...sizeSet].sort((a, b) => a - b);
  const latest = sizes.at(-1) as number;
  const consistency = [];
  for (const from of sizes.slice(0, -1))
    consistency.push({ from, to: latest, paths: await source.consistency(log, from, latest) });
  const shipped = [];
  for (const size of sizes) shipped.push({ mmr_size: size, seal: toBase64(await seals.bytes(log, size)) });
  const checkpoint = await checkpointOf(source, log, treeSizes);
  return {
    log,
    profile: "mmr",
    seals: shipped,
    consistency,
    ...(checkpoint ? { checkpoints: [checkpoint] } : {}),
  };
}

/**
 * Gathers an evidence bundle from what one caller may read (`source`, over fetch or in-process):
 * the records, their receipts, for each log the seal that first covered each record and the
 * latest seal with consistency proofs between them, the service's keys, and the index's lookup
 * of the subject's key when the caller may have it and it agrees with what was gathered.
 */
export async function buildBundle(
  source: EvidenceSource,
  subject: BundleSubject,
  now = new Date(),
): Promise<EvidenceBundle> {
  const key = canonicalKey(subject.kind === "vcon" ? `vcon://${subject.uuid}` : `assets/${subject.uuid}`);
  // Asked before the records are listed: the log only grows, so every entry below its log size
  // is among the records listed after it.
  const lookup = key === undefined ? undefined : await subjectLookup(source, key);
  const { assets, events: listed, id } = await recordsOf(source, subject);
  const free =
    lookup && subject.kind === "vcon" ? await missingFreeEvents(source, lookup, listed) : undefined;
  const events = free?.records.length ? logOrder([...listed, ...free.records]) : listed;
  if (events.length === 0) throw new LookupError(`${id} has no records you may read`);
  const keySet = await source.keySet();
  const seals = sealReader(source);
  const { records, wanted, treeSizes } = await receiptedRecords(source, events, seals, {
    statements: free?.statements ?? new Map(),
    unavailable: free?.unavailable ?? new Map(),
  });
  const index = lookup && wanted.has(lookup.log) && lookupHolds(lookup, events) ? [lookup] : [];
  // The lookup's log size is tied to the bundle's checkpoint like a receipt's tree size.
  for (const l of index) addTo(treeSizes, l.log, l.revision.log_size);
  const logs: BundleLog[] = [];
  for (const [log, sizeSet] of wanted)
    logs.push(await logEvidence(source, seals, log, sizeSet, treeSizes.get(log) ?? new Set()));
  return {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    created_at: now.toISOString(),
    service: source.base,
    subject: {
      kind: subject.kind,
      id,
      ...(subject.kind === "vcon" && subject.holder ? { holder: subject.holder } : {}),
    },
    assets,
    records,
    logs,
    keys: { cose_key_set: toBase64(keySet) },
    ...(index.length > 0 ? { index } : {}),
  };
}
