import type { CborValue } from "../../formats/cbor/index.js";
import {
  decodeReceipt,
  decodeRfc9162Receipt,
  decodeSign1,
  HEADER,
  receiptVds,
  VDS_MMR,
  VDS_RFC9162,
  verifyReceipt,
  verifyRfc9162Receipt,
  verifySign1,
} from "../../formats/cose/index.js";
import type { PublicKey, SignatureKey } from "../../formats/crypto/public-key.js";
import { parseIdTimestamp } from "../../formats/ledger/index.js";
import { type ApiRecord, signedAttributes } from "../../formats/record/api-record.js";
import {
  type AssetFreeLeafSchema,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
  assetFreeLeafSchemas,
} from "../../formats/record/index.js";
import { cwtClaimsOf } from "../../formats/scitt/cwt-claims.js";
import { registeredEvent } from "../../formats/scitt/registered.js";
import { statementToEventAttributes } from "../../formats/scitt/statement.js";
import { RECORD_JSON, registeredTreeLeaf } from "../../formats/scitt/transparent-statement.js";
import { verifyRecordReceipt } from "../receipts/record.js";

/** The MMR leaf a receipt for this registered statement must lead from. */
function registeredLeaf(
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

const sameText = (a: unknown, b: string, name: string) => {
  const v = typeof a === "string" ? a : JSON.stringify(a);
  if (name === "payload") return v.toLowerCase() === b.toLowerCase();
  if (name === "payload_hash_alg")
    return v.toUpperCase().replace("-", "") === b.toUpperCase().replace("-", "");
  return v === b;
};

/** Whether every attribute the statement carries is the record's (so the record's receipts are the statement's). */
function statementMatchesRecord(statement: Uint8Array, record: ApiRecord): string | undefined {
  const attrs = signedAttributes(record);
  if (!attrs || typeof attrs !== "object") return "the embedded record has no attributes";
  let attributes: Record<string, string>;
  try {
    ({ attributes } = statementToEventAttributes(statement));
  } catch (err) {
    return `the statement's attributes cannot be read: ${(err as Error).message}`;
  }
  for (const [k, v] of Object.entries(attributes))
    if (!sameText(attrs[k], v, k)) return `the statement's ${k} is not the embedded record's`;
  return undefined;
}

export type TransparentVerdict =
  | { ok: true; issuer: string; receipts: number; profiles: Array<"mmr" | "rfc9162"> }
  | { ok: false; reason: string };

const kidOf = (h: Map<CborValue, CborValue>) => {
  const k = h.get(HEADER.kid);
  return k instanceof Uint8Array ? new TextDecoder().decode(k) : "";
};

function embeddedRecord(u: Map<CborValue, CborValue>): ApiRecord | string | undefined {
  const raw = u.get(RECORD_JSON);
  if (raw === undefined) return undefined;
  try {
    const r = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw as Uint8Array)) as unknown;
    return r && typeof r === "object" && !Array.isArray(r)
      ? (r as ApiRecord)
      : "the embedded record is not a JSON object";
  } catch {
    return "the embedded record is not UTF-8 JSON";
  }
}

/** One receipt of a registered statement, in either profile. */
function verifyRegisteredReceipt(
  statement: Uint8Array,
  r: Uint8Array,
  serviceKeys: Map<string, PublicKey>,
  detachedPayload: Uint8Array | undefined,
): { ok: true; profile: "mmr" | "rfc9162" } | { ok: false; reason: string } {
  try {
    const vds = receiptVds(r);
    if (vds === VDS_RFC9162) {
      const key = serviceKeys.get(decodeRfc9162Receipt(r).kid);
      if (!key) return { ok: false, reason: "no service key for the receipt's kid" };
      const v = verifyRfc9162Receipt(r, registeredTreeLeaf(statement, detachedPayload), key);
      return v.ok ? { ok: true, profile: "rfc9162" } : v;
    }
    if (vds !== VDS_MMR)
      return { ok: false, reason: `receipt profile (vds ${String(vds)}) is not one we verify` };
    const key = serviceKeys.get(decodeReceipt(r).kid);
    if (!key) return { ok: false, reason: "no service key for the receipt's kid" };
    // Registrations committed before the eventsv1 field order was adopted used the sorted one.
    const tried = assetFreeLeafSchemas(registeredEvent(statement)).map((schema) =>
      verifyReceipt(r, registeredLeaf(statement, r, schema), key),
    );
    const v = tried.find((t) => t.ok) ?? tried[0];
    if (!v) return { ok: false, reason: "no leaf to verify" };
    return v.ok ? { ok: true, profile: "mmr" } : v;
  } catch (err) {
    return { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
  }
}

/**
 * Verifies a (transparent) statement offline: the issuer's signature, and every receipt
 * (attached in 394, or given) in its profile. A statement made from a record carries the
 * record (`RECORD_JSON`): its receipts are checked against the record's leaf, after checking
 * the statement says what the record says. Otherwise it is a registered statement, whose leaf
 * the statement alone gives (MMR: the registration's event; RFC 9162: its payload's digest).
 *
 * @example
 * ```ts
 * const v = verifyStatement(transparentStatement, { issuerKeys, serviceKeys: keysFromKeySet(keySet) });
 * if (!v.ok) console.error(v.reason);
 * ```
 */
export function verifyStatement(
  statement: Uint8Array,
  opts: {
    issuerKeys: Map<string, SignatureKey>;
    serviceKeys: Map<string, PublicKey>;
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
  const record = embeddedRecord(s.unprotectedHeader);
  if (typeof record === "string") return { ok: false, reason: record };
  if (record) {
    const mismatch = statementMatchesRecord(statement, record);
    if (mismatch) return { ok: false, reason: mismatch };
  }
  const profiles: Array<"mmr" | "rfc9162"> = [];
  for (const r of receipts) {
    const v = record
      ? verifyRecordReceipt(record, r, opts.serviceKeys)
      : verifyRegisteredReceipt(statement, r, opts.serviceKeys, opts.detachedPayload);
    if (!v.ok) return v;
    profiles.push(v.profile);
  }
  const claims = cwtClaimsOf(s.protectedHeader);
  return { ok: true, issuer: claims ? String(claims.get(1) ?? "") : "", receipts: receipts.length, profiles };
}
