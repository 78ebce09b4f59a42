import { decodeSign1, HEADER, type Sign1, verifySign1 } from "../../formats/cose/index.js";
import type { SignatureKey } from "../../formats/crypto/public-key.js";
import { sha256 } from "../../formats/crypto/sha256.js";
import { type ApiRecord, candidateLeaves, recordKind } from "../../formats/record/api-record.js";
import { registeredEvent } from "../../formats/scitt/registered.js";

/**
 * The issuer's signature over a registered statement, which is what binds the record's subject,
 * issuer and metadata to a tree leaf that holds only the payload's hash.
 */
interface IssuerSignature {
  /** `unchecked`: no key the caller gave has the statement's kid, so its subject and issuer are not proven. */
  state: "verified" | "unchecked" | "invalid";
  kid: string;
}

/**
 * The data of the RFC 9162 leaf a record's log entry holds (leaf = SHA-256(0x00 ‖ data)), and
 * what that leaf covers. It follows from what the record is, never from a value the record
 * carries to choose it:
 *
 * - an asset event: its MMR leaf, recomputed from its v3 fields;
 * - an asset-free event: its MMR leaf (either serialisation it may have been committed under);
 * - a registered signed statement (an asset-free event of type `scitt_statement`): also the
 *   SHA-256 of the statement's payload, but only with the statement itself, bound to the
 *   record (its digest is the record's `scitt_statement_sha256`, and every hashed field of the
 *   record is what the statement says). That leaf covers the payload alone; the subject, the
 *   issuer and the metadata are covered by the issuer's signature, so `issuer` says whether it
 *   was checked under a key the caller gave.
 */
export type TreeLeaves =
  | { ok: true; candidates: Uint8Array[]; statement?: { leafData: Uint8Array; issuer: IssuerSignature } }
  | { ok: false; reason: string };

const REGISTERED = "scitt_statement";

/** Whether the record says it is a registered statement (which then needs the statement to be checked as one). */
export function claimsRegisteredStatement(record: ApiRecord): boolean {
  try {
    return recordKind(record) === "asset-free-event" && record.event_type === REGISTERED;
  } catch {
    return false;
  }
}

/** The hashed fields where the record and what the statement registers differ. */
function differences(record: ApiRecord, statement: Uint8Array): string[] {
  const made = registeredEvent(statement);
  const attrs = (record.attributes ?? {}) as Record<string, unknown>;
  const out: string[] = [];
  const keys = new Set([...Object.keys(attrs), ...Object.keys(made.attributes)]);
  for (const k of [...keys].sort()) if (attrs[k] !== made.attributes[k]) out.push(`attributes.${k}`);
  if (JSON.stringify(record.trails ?? []) !== JSON.stringify(made.trails)) out.push("trails");
  if (record.event_type !== made.event_type) out.push("event_type");
  return out;
}

function issuerSignature(
  s: Sign1,
  bytes: Uint8Array,
  keys: ReadonlyMap<string, SignatureKey>,
): IssuerSignature {
  const raw = s.protectedHeader.get(HEADER.kid) ?? s.unprotectedHeader.get(HEADER.kid);
  const kid = raw instanceof Uint8Array ? new TextDecoder().decode(raw) : typeof raw === "string" ? raw : "";
  const key = keys.get(kid);
  if (!key) return { state: "unchecked", kid };
  return { state: verifySign1(bytes, key) ? "verified" : "invalid", kid };
}

/**
 * The leaves to check a record against in the log's RFC 9162 tree. `statement` is the registered
 * statement the record stands for (a tlog-proof's extra data carries it); `issuerKeys` the
 * statement issuers' keys the caller trusts.
 */
export function recordTreeLeaves(
  record: ApiRecord,
  statement?: Uint8Array,
  issuerKeys: ReadonlyMap<string, SignatureKey> = new Map(),
): TreeLeaves {
  let candidates: Uint8Array[];
  try {
    candidates = candidateLeaves(record);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  if (!statement || !claimsRegisteredStatement(record)) return { ok: true, candidates };
  let s: Sign1;
  let diff: string[];
  try {
    s = decodeSign1(statement);
    diff = differences(record, statement);
  } catch (err) {
    return {
      ok: false,
      reason: `the statement carried for the record is malformed: ${(err as Error).message}`,
    };
  }
  if (diff.length)
    return {
      ok: false,
      reason: `the record is not what the statement it names registers: ${diff.join(", ")} differ`,
    };
  if (!s.payload) return { ok: false, reason: "the statement's payload is detached" };
  const leafData = sha256(s.payload);
  const issuer = issuerSignature(s, statement, issuerKeys);
  if (issuer.state === "invalid")
    return {
      ok: false,
      reason: `the statement's signature does not verify under the issuer key ${issuer.kid}`,
    };
  return { ok: true, candidates: [...candidates, leafData], statement: { leafData, issuer } };
}
