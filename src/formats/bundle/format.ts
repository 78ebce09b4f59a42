/**
 * An evidence bundle: one JSON file holding a vCon's or an asset's whole trail and everything
 * needed to check it with no service reachable.
 *
 * Versioned and extensible: `version` is the format's major version (a verifier refuses a
 * major it does not know); receipts and logs name their `profile`, so RFC 9162 receipts and
 * C2SP checkpoints with cosignatures join as new profiles beside "mmr" without a new major.
 * A verifier reports the profiles and `extensions` it does not know as not checked rather than
 * failing on them, and never counts them as evidence.
 */
import type { IndexLookup } from "../vindex/lookup-format.js";

export const BUNDLE_FORMAT = "vcon-archivist/evidence-bundle";
export const BUNDLE_VERSION = 1;
/** The profile a registered statement's RFC 9162 receipt is filed under (`BundleReceipt.profile`). */
export const STATEMENT_RECEIPT_PROFILE = "rfc9162-statement";

/** True when bytes look like an evidence bundle, for picking a check. */
export function looksLikeBundle(raw: Uint8Array): boolean {
  const head = new TextDecoder().decode(raw.slice(0, 200));
  return head.includes(`"${BUNDLE_FORMAT}"`);
}

/** Binary values (COSE, CBOR) are base64 strings; hashes are hex. */
type Base64 = string;

export interface BundleReceipt {
  /**
   * "mmr": a COSE receipt of the MMR profile over the record's leaf; "rfc9162": an
   * RFC9162_SHA256 inclusion receipt in the log's RFC 9162 tree (the tree C2SP checkpoints sign);
   * "rfc9162-statement": the same receipt of a registered statement's entry, whose tree leaf is
   * the hash of the statement's payload, so it is checked with the record's `statement`. It is a
   * profile of its own because a verifier that predates it would recompute the leaf from the
   * record alone and call a genuine receipt tampered; as an unknown profile it is only not checked.
   */
  profile: string;
  /** The log the receipt proves inclusion in (`tenant/<uuid>`). */
  log: string;
  /** The sealed MMR size the receipt's path leads into (one of the log's bundled seals). */
  mmr_size?: number;
  /** RFC 9162: the tree size whose root the receipt signs. */
  tree_size?: number;
  receipt: Base64;
}

/** A C2SP checkpoint of the log's RFC 9162 tree, as served, and the key that signs it. */
export interface BundleCheckpoint {
  /** The signed note (`…/tlog/checkpoint`), with every witness cosignature it carried. */
  note: string;
  /** The log's checkpoint key (`…/tlog/key`, signed-note vkey). */
  key: string;
  /** RFC 9162 consistency proofs from each rfc9162 receipt's tree size to the checkpoint's (hex). */
  consistency: Array<{ from: number; to: number; proof: string[] }>;
}

export interface BundleRecord {
  /** The record exactly as the API returned it: its leaf is recomputed from this JSON. */
  record: Record<string, unknown>;
  receipts: BundleReceipt[];
  /**
   * A registered statement's record (an asset-free event of type `scitt_statement`): the signed
   * statement it records (COSE_Sign1, as `GET /entries/{id}/statement` serves it). It is bound
   * to the record by its digest (the record's signed `scitt_statement_sha256`) and gives the
   * record's RFC 9162 leaf. Every such record carries it or says why not (`statement_unavailable`);
   * no other does.
   */
  statement?: Base64;
  /**
   * A registered statement's record whose statement the exporter could not read (its bytes gone
   * from the service, a refusal): the exporter's reason, in its own words. The record is then in
   * the bundle with its MMR receipt only: its leaf (the statement's digest, subject and issuer
   * among its signed attributes) is proven, its statement's content and its place in the RFC 9162
   * tree are not, and the verdict names it among what it did not check. Never beside `statement`.
   */
  statement_unavailable?: string;
}

interface BundleSeal {
  mmr_size: number;
  /** COSE_Sign1 over the MMR state (size, peaks, time), signed with the service's seal key. */
  seal: Base64;
}

interface BundleConsistency {
  from: number;
  to: number;
  /** One path per peak of `from` into the MMR of `to` (hex node hashes). */
  paths: string[][];
}

export interface BundleLog {
  log: string;
  /** "mmr": seals over Merkle Mountain Range states with the draft's consistency proofs. */
  profile: string;
  /** The seals that first covered each record, and the latest seal (the largest size). */
  seals: BundleSeal[];
  /** From every other seal to the latest: the log only grew between them. */
  consistency: BundleConsistency[];
  /** The log's latest C2SP checkpoint with its witness cosignatures, when the service has one. */
  checkpoints?: BundleCheckpoint[];
}

export interface EvidenceBundle {
  format: typeof BUNDLE_FORMAT;
  version: number;
  created_at: string;
  /** The service the evidence came from (its base URL, which is also the receipts' issuer). */
  service: string;
  /**
   * `holder`: the tenancy the bundle was exported for (`tenant/<uuid>`), whose records decide a
   * vCon's consent in its report; others' records decide nothing (not signed: each processing
   * is judged by its own tenancy's records whatever it says).
   */
  subject: { kind: "asset" | "vcon"; id: string; holder?: string };
  /** The asset's own record (context; assets are not log leaves, their events are). */
  assets: Array<Record<string, unknown>>;
  records: BundleRecord[];
  logs: BundleLog[];
  /** The service's public keys: COSE_KeySet as GET /.well-known/scitt-keys serves it. */
  keys: { cose_key_set: Base64 };
  /**
   * The verifiable index's answer for the subject's key (`vcon://<uuid>`, `assets/<uuid>`), one
   * per log whose completeness it proves, as `GET /archivist/v1/vindex/lookup` gave it: every
   * entry of that log filed under the key below the lookup's log size, with its proofs. Absent:
   * the bundle is not proven complete. A verifier that does not know it ignores it (it adds
   * nothing an old verifier's checks rely on, so `version` stays 1).
   */
  index?: IndexLookup[];
  extensions?: Record<string, unknown>;
  /**
   * What the service judged of this evidence when it exported it (the evidence route adds it):
   * checked with its own keys, so self-consistent at best. Unsigned and never read by a verifier,
   * which judges the bundle anew against the caller's roots.
   */
  service_verdict?: unknown;
}
