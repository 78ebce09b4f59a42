/**
 * A transparent statement as the log makes it: a signed statement with its receipts (and, optionally,
 * the record they prove) in its unprotected header, and the RFC 9162 leaf a registered statement is.
 * Checking one is the verifier's (src/verify/scitt/transparent.ts).
 */
import { type CborValue, encodeCbor, Tagged } from "../cbor/index.js";
import { decodeSign1, HEADER } from "../cose/index.js";
import { tlogLeafData } from "../ledger/index.js";
import type { ApiRecord } from "../record/api-record.js";
import { leafHash } from "../rfc9162/index.js";

/**
 * Unprotected header of a transparent statement made from a record (an asset event or an
 * asset-free event carrying the vCon template): the record's API JSON (UTF-8), as the caller
 * may read it. Its receipts are the record's, whose leaf only the record recomputes; the
 * statement's own attributes must agree with it (`statementMatchesRecord`).
 */
export const RECORD_JSON = -70002;

/** The statement with its receipts in unprotected header 394 (a transparent statement), and optionally its record. */
export function attachReceipts(
  statement: Uint8Array,
  receipts: Uint8Array[],
  record?: ApiRecord,
): Uint8Array {
  const s = decodeSign1(statement);
  const unprotected = new Map<CborValue, CborValue>(s.unprotectedHeader);
  unprotected.set(HEADER.receipts, receipts);
  if (record) unprotected.set(RECORD_JSON, new TextEncoder().encode(JSON.stringify(record)));
  return encodeCbor(new Tagged(18, [s.protectedBytes, unprotected, s.payload, s.signature]));
}

/** The RFC 9162 leaf hash of a registered statement: SHA-256(0x00 ‖ SHA-256(payload)). */
export function registeredTreeLeaf(statement: Uint8Array, detachedPayload?: Uint8Array): Uint8Array {
  const payload = decodeSign1(statement).payload ?? detachedPayload;
  if (!payload) throw new Error("the statement's payload is detached; give it to recompute the leaf");
  return leafHash(tlogLeafData({ mmrLeaf: new Uint8Array(), statementPayload: payload }));
}
