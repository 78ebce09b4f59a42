import type { IndexLookup } from "../../formats/vindex/lookup-format.js";
import { claimsRegisteredStatement, verifyRecordReceipt } from "../../verify/index.js";
import { LookupError, type PublicApi, type PublicRecord } from "../public-api.js";
import type { EvidenceSource, PublishedCheckpoint, ReceiptProfile, SourcedReceipt } from "./source.js";

const tenantOf = (log: string) => log.replace(/^tenant\//, "");
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/**
 * Evidence read over fetch, a GET on the service's routes per read with the caller's token (the
 * look-up client's): what the CLI and the pages gather from any service, and what the service's
 * in-process reads are held to. A receipt is checked as it comes, with the keys the client trusts:
 * it is what states the receipt's log and place, which the routes do not answer beside it.
 */
export class FetchedEvidence implements EvidenceSource {
  /** Statements read, by identity: the bundle carries each and its RFC 9162 receipt is checked with it. */
  private readonly statements = new Map<string, Promise<Uint8Array>>();

  constructor(private readonly api: PublicApi) {}

  get base(): string {
    return this.api.base;
  }

  asset(uuid: string): Promise<PublicRecord> {
    return this.api.json<PublicRecord>(`/archivist/v2/assets/${uuid}`);
  }

  assetEvents(uuid: string): Promise<PublicRecord[]> {
    return this.api.list(`/archivist/v2/assets/${uuid}/events`, "events");
  }

  subjectEvents(subject: string): Promise<PublicRecord[]> {
    const q = `event_attributes.subject=${encodeURIComponent(subject)}`;
    return this.api.list(`/archivist/v2/assets/-/events?${q}`, "events");
  }

  subjectStatements(subject: string): Promise<PublicRecord[]> {
    const q = `subject=${encodeURIComponent(subject)}&page_size=500`;
    return this.api.list(`/archivist/v1/statements?${q}`, "statements");
  }

  freeEvent(identity: string): Promise<PublicRecord> {
    return this.api.json<PublicRecord>(`/archivist/v1/${identity}`);
  }

  statement(identity: string): Promise<Uint8Array> {
    let read = this.statements.get(identity);
    if (!read) {
      const entry = `events_${identity.replace(/^events\//, "")}`;
      read = this.api.bytes(`/entries/${encodeURIComponent(entry)}/statement`);
      this.statements.set(identity, read);
      read.catch(() => this.statements.delete(identity));
    }
    return read;
  }

  async receipt(identity: string): Promise<Uint8Array | undefined> {
    const r = await this.api.get(`/archivist/v1/receipts/${identity}`);
    // 409: not committed or not sealed yet.
    if (r.status === 409) return undefined;
    if (r.status !== 200) throw new LookupError(`the receipt of ${identity} answered ${r.status}`, r.status);
    return r.bytes;
  }

  async receipts(records: readonly PublicRecord[], profile: ReceiptProfile) {
    const keys = await this.api.keys();
    const out = new Map<string, SourcedReceipt>();
    for (const record of records) {
      const identity = String(record.identity);
      const got = profile === "mmr" ? await this.receipt(identity) : await this.treeReceipt(identity);
      if (!got) continue;
      // A registered statement's RFC 9162 leaf is its payload's hash: only the statement checks it.
      const statement =
        profile === "rfc9162" && claimsRegisteredStatement(record)
          ? await this.statement(identity)
          : undefined;
      const v = verifyRecordReceipt(record, got, keys, statement);
      if (profile === "mmr") {
        if (!v.ok)
          throw new LookupError(`the service's receipt for ${identity} does not verify: ${v.reason}`);
        out.set(identity, { receipt: got, log: v.subject, mmrIndex: v.mmrIndex, peak: v.peak });
        // An RFC 9162 receipt that does not check is left out: the MMR one proves the record.
      } else if (v.ok && v.profile === "rfc9162" && v.treeSize !== undefined)
        out.set(identity, { receipt: got, log: v.subject, treeSize: v.treeSize });
    }
    return out;
  }

  /** A record's RFC 9162 receipt, when it has one; over the rate limit is not "none". */
  private async treeReceipt(identity: string): Promise<Uint8Array | undefined> {
    const t = await this.api.get(`/archivist/v1/receipts/${identity}?profile=rfc9162`);
    if (t.status === 429) throw new LookupError(`the RFC 9162 receipt of ${identity} answered 429`, 429);
    return t.status === 200 ? t.bytes : undefined;
  }

  async sealSizes(log: string): Promise<number[]> {
    const path = `/archivist/v1/merklelogs/${tenantOf(log)}/seals`;
    return (await this.api.json<{ mmr_sizes: number[] }>(path)).mmr_sizes;
  }

  seal(log: string, size: number): Promise<Uint8Array> {
    return this.api.bytes(`/archivist/v1/merklelogs/${tenantOf(log)}/seals/latest?mmr_size=${size}`);
  }

  async consistency(log: string, from: number, to: number): Promise<string[][]> {
    const path = `/archivist/v1/merklelogs/${tenantOf(log)}/consistency?from=${from}&to=${to}`;
    return (await this.api.json<{ paths: string[][] }>(path)).paths;
  }

  async treeConsistency(log: string, from: number, to: number): Promise<string[]> {
    const query = `profile=rfc9162&from=${from}&to=${to}`;
    const path = `/archivist/v1/merklelogs/${tenantOf(log)}/consistency?${query}`;
    return (await this.api.json<{ proof: string[] }>(path)).proof;
  }

  keySet(): Promise<Uint8Array> {
    return this.api.bytes("/.well-known/scitt-keys");
  }

  async checkpoint(log: string): Promise<PublishedCheckpoint> {
    const tlog = `/archivist/v1/merklelogs/${tenantOf(log)}/tlog`;
    const note = await this.api.bytes(`${tlog}/checkpoint`);
    const key = await this.api.bytes(`${tlog}/key`);
    return { note: text(note), key: text(key).trim() };
  }

  indexLookup(key: string): Promise<IndexLookup> {
    return this.api.json<IndexLookup>(`/archivist/v1/vindex/lookup?key=${encodeURIComponent(key)}`);
  }
}
