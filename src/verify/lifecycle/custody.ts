/**
 * Chain of custody: the lifecycle draft's `vcon_sent` ("a transparency service receipt from the
 * receiving service confirms possession") and `vcon_received` ("returning a transparency service
 * receipt to the sender"). Each transfer event may carry the other party's record of the vCon with
 * its receipt and that party's keys; a hop is verified when the carried record is of the same
 * vCon, with the same content (payload), of the same transfer, and its receipt verifies.
 *
 * The exchange (docs/vcon-lifecycle.md, §6): the sender shows its own latest record of the vCon
 * (with its receipt) to the receiver, whose `vcon_received` carries it; the receiver returns its
 * `vcon_received` with its receipt, which the sender's `vcon_sent` carries. Either side's evidence
 * then proves the hop on its own.
 */
import { fromBase64 } from "../../formats/crypto/bytes.js";
import type { PublicKey, PublicKeyFactory } from "../../formats/crypto/public-key.js";
import { publicKeyFromJwk } from "../../formats/crypto/public-key.js";
import type { LifecycleRecord } from "../../formats/lifecycle/consent.js";
import {
  LIFECYCLE_ATTRIBUTES,
  recordAttributes,
  recordLifecycle,
} from "../../formats/lifecycle/vocabulary.js";
import { keysFromKeySet, verifyRecordReceipt } from "../receipts/index.js";
import { keyFingerprint } from "../verdict/fingerprint.js";

/** One hop as a transfer event records it, and how far the other party's proof holds. */
export interface CustodyHop {
  identity: string;
  direction: "sent" | "received";
  transfer_id: string;
  /** The other party, as the record names it. */
  peer: string;
  at: string;
  /** The other party's record the event carries, and its check. */
  proof:
    | { state: "none" }
    | {
        state: "verified";
        record: string;
        operation: string;
        /** Under keys the caller pinned, or only under the keys the event carries (compare their fingerprints). */
        keys: "pinned" | "carried";
        fingerprints: string[];
        issuer: string;
      }
    | { state: "failed"; record: string; reason: string };
}

const text = (v: unknown) => (typeof v === "string" ? v : "");
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function parsePeerRecord(v: unknown): Record<string, unknown> | undefined {
  if (isObject(v)) return v;
  if (typeof v !== "string") return undefined;
  try {
    const parsed = JSON.parse(v) as unknown;
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks a transfer event's carried proof: the other party's record (the complementary side of
 * the same transfer, or, on a receipt, the sender's record of the same content), its receipt
 * under the caller's keys (`pinned`) or else under the keys the event carries.
 */
function checkProof(
  r: LifecycleRecord,
  direction: "sent" | "received",
  keys: CustodyKeys,
): CustodyHop["proof"] {
  const { pinned, evidence, makeKey = publicKeyFromJwk } = keys;
  const a = recordAttributes(r.record);
  const rawRecord = a[LIFECYCLE_ATTRIBUTES.peerRecord];
  const rawReceipt = a[LIFECYCLE_ATTRIBUTES.peerReceipt];
  if (rawRecord === undefined && rawReceipt === undefined) return { state: "none" };
  const peer = parsePeerRecord(rawRecord);
  const peerId = text(peer?.identity);
  const fail = (reason: string): CustodyHop["proof"] => ({ state: "failed", record: peerId, reason });
  if (!peer) return fail("the other party's record is not a JSON object");
  const pa = recordAttributes(peer);
  if (text(pa.subject) !== text(a.subject))
    return fail(`the other party's record is of ${text(pa.subject) || "no subject"}, not ${text(a.subject)}`);
  if (text(pa.payload) !== text(a.payload))
    return fail("the other party's record is of other content (its payload is not this record's)");
  const ownId = text(a[LIFECYCLE_ATTRIBUTES.transferId]);
  const peerTransfer = text(pa[LIFECYCLE_ATTRIBUTES.transferId]);
  if (peerTransfer && ownId && peerTransfer !== ownId)
    return fail(`the other party's record is of transfer ${peerTransfer}, not ${ownId}`);
  const peerOp = recordLifecycle(peer).name;
  if (direction === "sent" && !(peerOp === "vcon_received" && peerTransfer === ownId && ownId))
    return fail("a vcon_sent is confirmed by the receiver's vcon_received of the same transfer");
  let receipt: Uint8Array;
  try {
    receipt = fromBase64(text(rawReceipt));
  } catch {
    return fail("the other party's receipt is not base64");
  }
  const candidates: Array<["pinned" | "carried", Map<string, PublicKey>]> = [];
  if (pinned?.size) candidates.push(["pinned", pinned]);
  const carriedText = text(a[LIFECYCLE_ATTRIBUTES.peerKeys]);
  if (carriedText)
    try {
      candidates.push(["carried", keysFromKeySet(fromBase64(carriedText), makeKey)]);
    } catch {
      return fail("the other party's keys are not a COSE key set");
    }
  if (evidence?.size) candidates.push(["carried", evidence]);
  if (candidates.length === 0) return fail("no keys to check the other party's receipt with");
  let reason = "";
  for (const [keys, set] of candidates) {
    const v = verifyRecordReceipt(peer, receipt, set);
    if (v.ok)
      return {
        state: "verified",
        record: peerId,
        operation: peerOp,
        keys,
        fingerprints: [...set.values()].map((k) => keyFingerprint(k)),
        issuer: v.issuer,
      };
    reason ||= v.reason;
  }
  return fail(`the other party's receipt does not verify: ${reason}`);
}

/**
 * The keys a hop's proof is checked with, in this order: the service keys the caller pinned (a peer
 * on the same service is proven under them), the keys the event carries, and the keys the evidence
 * itself brought (a bundle's): the last two only as "carried", to compare by fingerprint.
 */
export interface CustodyKeys {
  pinned?: Map<string, PublicKey> | undefined;
  evidence?: Map<string, PublicKey> | undefined;
  makeKey?: PublicKeyFactory;
}

/** The hops of a vCon's records (ordered as the derivations read them): each `vcon_sent` and `vcon_received`, its proof checked. */
export function custodyHops(ordered: readonly LifecycleRecord[], keys: CustodyKeys = {}): CustodyHop[] {
  const hops: CustodyHop[] = [];
  for (const r of ordered) {
    const m = r.lifecycle.meaning;
    if (!m.known || (m.operation.role !== "transfer-sent" && m.operation.role !== "transfer-received"))
      continue;
    const direction = m.operation.role === "transfer-sent" ? "sent" : "received";
    const a = recordAttributes(r.record);
    hops.push({
      identity: r.identity,
      direction,
      transfer_id: text(a[LIFECYCLE_ATTRIBUTES.transferId]),
      peer: text(a[LIFECYCLE_ATTRIBUTES.transferPeer]),
      at: Number.isNaN(r.acceptedMs) ? "" : new Date(r.acceptedMs).toISOString(),
      proof: checkProof(r, direction, keys),
    });
  }
  return hops;
}

/**
 * The service keys a caller pinned, for checking a hop: given by value, or those of the evidence's
 * keys whose fingerprints the caller's policy names (`service-key` lines).
 */
export function pinnedServiceKeys(
  roots: {
    serviceKeys?: Map<string, PublicKey>;
    policy: { serviceKeys: Array<{ kid: string; fingerprint: string }> };
  },
  evidence: Map<string, PublicKey>,
): Map<string, PublicKey> | undefined {
  if (roots.serviceKeys) return roots.serviceKeys;
  const named = roots.policy.serviceKeys;
  if (named.length === 0) return undefined;
  return new Map(
    [...evidence].filter(([kid, key]) =>
      named.some((p) => p.kid === kid && p.fingerprint === keyFingerprint(key)),
    ),
  );
}
