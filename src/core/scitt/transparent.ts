import type { KeyObject } from "node:crypto";
import { type CborValue, encodeCbor, Tagged } from "../cbor/index.js";
import { decodeReceipt, decodeSign1, HEADER, verifyReceipt, verifySign1 } from "../cose/index.js";
import {
  type AssetFreeLeafSchema,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
  assetFreeLeafSchemas,
  parseIdTimestamp,
} from "../ledger/index.js";
import { registeredEvent } from "./registered.js";

/** The statement with its receipts in unprotected header 394 (a transparent statement). */
export function attachReceipts(statement: Uint8Array, receipts: Uint8Array[]): Uint8Array {
  const s = decodeSign1(statement);
  const unprotected = new Map<CborValue, CborValue>(s.unprotectedHeader);
  unprotected.set(HEADER.receipts, receipts);
  return encodeCbor(new Tagged(18, [s.protectedBytes, unprotected, s.payload, s.signature]));
}

/** The log leaf a receipt for this registered statement must lead from. */
export function registeredLeaf(
  statement: Uint8Array,
  receipt: Uint8Array,
  schema: AssetFreeLeafSchema = "eventsv1",
): Uint8Array {
  const info = decodeReceipt(receipt);
  if (!info.idtimestamp) throw new Error("receipt does not carry the leaf idtimestamp");
  const e = registeredEvent(statement);
  const tenant = info.subject.replace(/^tenant\//, "");
  return assetFreeEventLeafHash(
    e,
    parseIdTimestamp(info.idtimestamp).id,
    assetFreeExtraBytes(tenant),
    schema,
  );
}

export type TransparentVerdict =
  | { ok: true; issuer: string; receipts: number }
  | { ok: false; reason: string };

const kidOf = (h: Map<CborValue, CborValue>) => {
  const k = h.get(HEADER.kid);
  return k instanceof Uint8Array ? new TextDecoder().decode(k) : "";
};

/**
 * Verifies a (transparent) statement offline: the issuer's signature, and for every receipt
 * (attached in 394, or given) its signature over the peak its path leads to from the leaf.
 */
export function verifyStatement(
  statement: Uint8Array,
  opts: {
    issuerKeys: Map<string, KeyObject>;
    serviceKeys: Map<string, KeyObject>;
    receipts?: Uint8Array[];
    detachedPayload?: Uint8Array;
  },
): TransparentVerdict {
  let s: ReturnType<typeof decodeSign1>;
  try {
    s = decodeSign1(statement);
  } catch (err) {
    return { ok: false, reason: `statement is malformed: ${(err as Error).message}` };
  }
  const issuerKey = opts.issuerKeys.get(kidOf(s.protectedHeader));
  if (!issuerKey) return { ok: false, reason: `no issuer key with kid ${kidOf(s.protectedHeader)}` };
  if (!verifySign1(s, issuerKey, opts.detachedPayload))
    return { ok: false, reason: "issuer signature does not verify" };
  const attached = s.unprotectedHeader.get(HEADER.receipts) ?? [];
  // Receipts that cannot be read must fail the check, not be skipped (the caller counts them).
  if (!Array.isArray(attached) || !attached.every((r): r is Uint8Array => r instanceof Uint8Array))
    return { ok: false, reason: "receipts (394) must be an array of byte strings" };
  const receipts = [...attached, ...(opts.receipts ?? [])];
  for (const r of receipts) {
    let leaves: Uint8Array[];
    try {
      // Registrations committed before the eventsv1 field order was adopted used the sorted one.
      leaves = assetFreeLeafSchemas(registeredEvent(statement)).map((schema) =>
        registeredLeaf(statement, r, schema),
      );
    } catch (err) {
      return { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
    }
    const key = opts.serviceKeys.get(decodeReceipt(r).kid);
    if (!key) return { ok: false, reason: "no service key for the receipt's kid" };
    const tried = leaves.map((leaf) => verifyReceipt(r, leaf, key));
    const v = tried.find((t) => t.ok) ?? tried[0];
    if (!v?.ok) return v ?? { ok: false, reason: "no leaf to verify" };
  }
  const claims = s.protectedHeader.get(HEADER.cwtClaims);
  return {
    ok: true,
    issuer: claims instanceof Map ? String(claims.get(1) ?? "") : "",
    receipts: receipts.length,
  };
}
