import type { IndexLookup } from "../../formats/vindex/lookup-format.js";
import type { PublicRecord } from "../public-api.js";

/** A receipt's verifiable data structure: the MMR, or the RFC 9162 tree its checkpoints sign. */
export type ReceiptProfile = "mmr" | "rfc9162";

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

/** A log's published C2SP checkpoint (with its cosignatures) and the vkey that checks it. */
export interface PublishedCheckpoint {
  note: string;
  key: string;
}

/**
 * What an evidence bundle and a vCon's consent are gathered from: one caller's reads of one
 * service. Two implementations, each giving exactly what the service's routes give that caller
 * and no more: over fetch (`FetchedEvidence`, the CLI's and the pages', any service) and
 * in-process (`src/http/caller-evidence.ts`, the service's own evidence and consent routes).
 *
 * A read the service refuses throws a LookupError with the status its route answers (404 for
 * what the caller may not read, 429 over the caller's rate limit, 503 …); one that could not be
 * made has none. What a refusal means to a bundle or a report is the gatherer's to decide.
 */
export interface EvidenceSource {
  /** The service the evidence is of: its base URL, without a trailing slash. */
  readonly base: string;
  /** An asset, as the caller may read it. */
  asset(uuid: string): Promise<PublicRecord>;
  /** Every event of an asset the caller may read, newest first. */
  assetEvents(uuid: string): Promise<PublicRecord[]>;
  /** Every asset event whose `subject` attribute is `subject` that the caller may read, newest first. */
  subjectEvents(subject: string): Promise<PublicRecord[]>;
  /** The statements the statement search finds for `subject` among what the caller may read. */
  subjectStatements(subject: string): Promise<PublicRecord[]>;
  /** An asset-free event by its identity (`events/<uuid>`). */
  freeEvent(identity: string): Promise<PublicRecord>;
  /**
   * The signed statement a registered statement's event (`events/<uuid>`) records, as registered
   * (`GET /entries/events_<uuid>/statement`): its RFC 9162 leaf is the statement's payload hash.
   */
  statement(identity: string): Promise<Uint8Array>;
  /** A record's MMR receipt by its identity; undefined while it has none (not committed or sealed yet). */
  receipt(identity: string): Promise<Uint8Array | undefined>;
  /**
   * The receipts of records this source gave, by identity, in one profile: a record left out has
   * none yet (and, in RFC 9162, none that checks). What the service states of each is not checked
   * here unless the source had to check the receipt to learn it.
   */
  receipts(records: readonly PublicRecord[], profile: ReceiptProfile): Promise<Map<string, SourcedReceipt>>;
  /** The MMR sizes a log (`tenant/<uuid>`) has seals at, oldest first. */
  sealSizes(log: string): Promise<number[]>;
  /** A log's seal at one MMR size, as the service serves it. */
  seal(log: string, size: number): Promise<Uint8Array>;
  /** The MMR consistency proof's paths (hex) between two sizes of a log. */
  consistency(log: string, from: number, to: number): Promise<string[][]>;
  /** The RFC 9162 consistency proof (hex) between two tree sizes of a log. */
  treeConsistency(log: string, from: number, to: number): Promise<string[]>;
  /** The service's COSE_KeySet, as served. */
  keySet(): Promise<Uint8Array>;
  /** A log's published checkpoint and its key. */
  checkpoint(log: string): Promise<PublishedCheckpoint>;
  /** The verifiable index's answer for `key` in the caller's tenancy's log. */
  indexLookup(key: string): Promise<IndexLookup>;
}
