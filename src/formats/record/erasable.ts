/**
 * Erasable attributes: personal data committed in a record by a salted hash, the value and its
 * salt kept beside the record (in the service's evidentiary store), so that erasing them leaves
 * the record's leaf, and so every receipt, exactly as it was, and the erased value unguessable
 * from the log (the lifecycle draft's "separation between the immutable, append-only ledger and
 * the evidentiary metadata store").
 *
 * The commitment is what the record IS: the attribute's value in the record, and so in its leaf,
 * is `{"salted_sha256": "<hex>"}`. Nothing in a record chooses how its leaf is made; a verifier
 * hashes the record as it is, then checks any disclosed value against the commitment.
 */
import { fromBase64, toHex, utf8 } from "../crypto/bytes.js";
import { type Sha256, sha256 } from "../crypto/sha256.js";
import { kindOf } from "./api-record.js";
import { ERASABLE_MAPS, type ErasableMap, type Erased } from "./erasable-member.js";

/** The only key of a commitment's map. */
export const COMMITMENT_KEY = "salted_sha256";

/** Domain separation: a commitment is never the hash of anything else this service makes. */
const DOMAIN = utf8("vcon-archivist/erasable-attribute/v1\0");

/** Salt bytes: 256 bits, so that a short value (a phone number) cannot be found by trying them all. */
export const SALT_BYTES = 32;

/**
 * The maps the record's leaf hashes: an asset event's two, an asset-free event's one. A
 * commitment in another map is unsigned, so a value disclosed against it proves nothing. A
 * record of neither kind proves nothing either; all its maps are read.
 */
function signedMaps(record: Record<string, unknown>): readonly ErasableMap[] {
  const kind = kindOf(record);
  if (kind === "asset-event") return ["event_attributes", "asset_attributes"];
  if (kind === "asset-free-event") return ["attributes"];
  return ERASABLE_MAPS;
}

/** A commitment's hex digest, when `value` is a commitment (a map of exactly its one key). */
export function commitmentOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const digest = (value as Record<string, unknown>)[COMMITMENT_KEY];
  return keys.length === 1 && typeof digest === "string" && /^[0-9a-f]{64}$/.test(digest)
    ? digest
    : undefined;
}

/** SHA-256(domain ‖ salt ‖ UTF-8 value), hex. */
export function commitmentDigest(value: string, salt: Uint8Array, hash: Sha256 = sha256): string {
  return toHex(hash(DOMAIN, salt, utf8(value)));
}

/** The commitment an attribute holds in the record instead of `value`. */
export function commit(value: string, salt: Uint8Array, hash: Sha256 = sha256): { [COMMITMENT_KEY]: string } {
  if (salt.length !== SALT_BYTES) throw new RangeError(`a salt is ${SALT_BYTES} bytes`);
  return { [COMMITMENT_KEY]: commitmentDigest(value, salt, hash) };
}

/** How one committed attribute of a record stands. */
export type AttributeStanding =
  | { map: ErasableMap; name: string; commitment: string; state: "disclosed"; value: string }
  | { map: ErasableMap; name: string; commitment: string; state: "erased"; erased: Erased }
  | { map: ErasableMap; name: string; commitment: string; state: "withheld" }
  | { map: ErasableMap; name: string; commitment: string; state: "mismatch"; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function base64Bytes(b64: string): Uint8Array | undefined {
  try {
    return fromBase64(b64);
  } catch {
    return undefined;
  }
}

/**
 * Every committed attribute of a record and how it stands: disclosed (its value and salt hash to
 * the commitment), erased (the service says by whom, when, why, and names the erasure's record),
 * withheld (neither), or a mismatch (a disclosure that does not hash to the commitment, or one
 * for an attribute the record does not commit: the evidence contradicts itself). Pure, portable.
 */
export function erasableStandings(
  record: Record<string, unknown>,
  hash: Sha256 = sha256,
): AttributeStanding[] {
  const member = isObject(record.erasable) ? (record.erasable as Record<string, unknown>) : {};
  const out: AttributeStanding[] = [];
  const signed = signedMaps(record);
  for (const map of ERASABLE_MAPS) {
    const attrs =
      signed.includes(map) && isObject(record[map]) ? (record[map] as Record<string, unknown>) : {};
    const told = isObject(member[map]) ? (member[map] as Record<string, unknown>) : {};
    for (const [name, value] of Object.entries(attrs)) {
      const commitment = commitmentOf(value);
      if (commitment === undefined) continue;
      const entry = told[name];
      const disclosed = isObject(entry) && isObject(entry.disclosed) ? entry.disclosed : undefined;
      const erased = isObject(entry) && isObject(entry.erased) ? entry.erased : undefined;
      if (disclosed) {
        const salt = typeof disclosed.salt === "string" ? base64Bytes(disclosed.salt) : undefined;
        if (typeof disclosed.value !== "string" || !salt || salt.length !== SALT_BYTES)
          out.push({
            map,
            name,
            commitment,
            state: "mismatch",
            reason: `${map}.${name}: its disclosure is malformed`,
          });
        else if (commitmentDigest(disclosed.value, salt, hash) !== commitment)
          out.push({
            map,
            name,
            commitment,
            state: "mismatch",
            reason: `${map}.${name}: the disclosed value does not hash to the record's commitment`,
          });
        else out.push({ map, name, commitment, state: "disclosed", value: disclosed.value });
      } else if (erased)
        out.push({
          map,
          name,
          commitment,
          state: "erased",
          erased: {
            by: String(erased.by ?? ""),
            at: String(erased.at ?? ""),
            basis: String(erased.basis ?? ""),
            record: String(erased.record ?? ""),
          },
        });
      else out.push({ map, name, commitment, state: "withheld" });
    }
    for (const name of Object.keys(told))
      if (commitmentOf(attrs[name]) === undefined)
        out.push({
          map,
          name,
          commitment: "",
          state: "mismatch",
          reason: `${map}.${name}: a disclosure for an attribute the record does not commit`,
        });
  }
  return out;
}

/** The words a verifier says of an erased attribute. */
export function erasedWords(s: Extract<AttributeStanding, { state: "erased" }>): string {
  const e = s.erased;
  return `${s.map}.${s.name} erased by ${e.by || "(not named)"} at ${e.at || "(no time)"} under ${e.basis || "(no basis given)"} (erasure record ${e.record || "not named"})`;
}
