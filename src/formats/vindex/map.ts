/**
 * The map function of the verifiable index, vindex/v1 (docs/complete-trails.md): from what a
 * record's leaf signs to the keys it is filed under. A verifier runs it on the records it holds
 * and the service on the rows it committed; both must file every record alike, so it reads only
 * signed fields and is written down precisely enough to be reimplemented.
 */
import { utf8 } from "../crypto/bytes.js";
import { type ApiRecord, kindOf, signedAttributes } from "../record/api-record.js";
import { canonicalSubject, isVconSubject, vconSubjectOf } from "../vcon/subject.js";

/** The version string bound into every VRF input and the index's documentation. */
const VINDEX_V1 = "vindex/v1";

/** What the map function reads of a record. */
export interface MapInput {
  kind: "asset-event" | "asset-free-event";
  /** An asset event's asset uuid. */
  asset?: string | undefined;
  /** The signed attributes' `subject`, when a string. */
  subject?: string | undefined;
  /** The signed attributes' `scitt_issuer`, when a string (a registered statement). */
  issuer?: string | undefined;
}

/**
 * The keys a record is filed under, sorted and each once:
 * - `assets/<uuid>` for an asset event (its asset, the uuid in lower case);
 * - `vcon://<uuid>` when its signed subject names a vCon (in either case: RFC 9562);
 * - for a registered statement (signed `scitt_issuer`): `issuer:<issuer>`, and
 *   `subject:<subject>` when it has one (a vCon subject in its one spelling).
 */
export function indexKeys(input: MapInput): string[] {
  // Each kind of key has a prefix of its own, so no two keys of a record are equal.
  const keys: string[] = [];
  if (input.kind === "asset-event" && input.asset) keys.push(`assets/${input.asset.toLowerCase()}`);
  const vcon = input.subject ? vconSubjectOf(input.subject) : undefined;
  if (vcon) keys.push(vcon);
  if (input.kind === "asset-free-event" && input.issuer !== undefined) {
    keys.push(`issuer:${input.issuer}`);
    const subject = vcon ?? input.subject;
    if (subject) keys.push(`subject:${subject}`);
  }
  return keys.length < 2 ? keys : keys.sort();
}

const ASSET_OF = /^(?:public)?assets\/([0-9a-fA-F-]{36})\/events\//;

/** The map function's input read from a record as the API returns it (undefined: not a record). */
function mapInputOf(record: ApiRecord): MapInput | undefined {
  const kind = kindOf(record);
  if (!kind) return undefined;
  const attrs = signedAttributes(record);
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  return {
    kind,
    asset: kind === "asset-event" ? ASSET_OF.exec(String(record.identity))?.[1] : undefined,
    subject: text(attrs?.subject),
    issuer: kind === "asset-free-event" ? text(attrs?.scitt_issuer) : undefined,
  };
}

/** The keys of a record as the API returns it; none for what is not a record. */
export function recordIndexKeys(record: ApiRecord): string[] {
  const input = mapInputOf(record);
  return input ? indexKeys(input) : [];
}

/**
 * A key as a caller may spell it, in its one spelling: `vcon://` and `assets/` uuids in lower
 * case; undefined for what is no key of vindex/v1.
 */
export function canonicalKey(key: string): string | undefined {
  if (isVconSubject(key)) return canonicalSubject(key);
  const asset =
    /^assets\/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/.exec(key);
  if (asset) return `assets/${(asset[1] as string).toLowerCase()}`;
  if (key.startsWith("issuer:")) return key;
  if (key.startsWith("subject:")) return `subject:${canonicalSubject(key.slice(8))}`;
  return undefined;
}

/**
 * The VRF input of a key in a log: `vindex/v1`, the log (`tenant/<uuid>`) and the key, joined by
 * newlines, UTF-8. Binding the log makes one key's positions in two tenancies unrelated.
 */
export function vrfInput(log: string, key: string): Uint8Array {
  return utf8(vrfInputText(log, key));
}

/** `vrfInput`'s text, for a caller that encodes it where it hashes it. */
export function vrfInputText(log: string, key: string): string {
  return `${VINDEX_V1}\n${log}\n${key}`;
}

/** Where a key sits in the index and the salt of its value commitment: the two halves of its VRF output. */
export function positionOf(beta: Uint8Array): { position: Uint8Array; salt: Uint8Array } {
  if (beta.length !== 64) throw new RangeError(`a VRF output is 64 bytes, not ${beta.length}`);
  return { position: beta.slice(0, 32), salt: beta.slice(32, 64) };
}

/**
 * The origin of a log's index output log: the log's C2SP origin with its last segment `tlog` made
 * `vindex` (`…/merklelogs/<tenant>/vindex`). Its checkpoints are signed by the log's own key under
 * this name, so a verifier who pinned the log key checks them with it.
 */
export function indexOrigin(logOrigin: string): string {
  return logOrigin.replace(/\/tlog$/, "/vindex");
}
