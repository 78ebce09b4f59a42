import { lookupValueProblem } from "../../core/scitt/lookup-values.js";
import { badRequest } from "../../errors/api-error.js";
import { canonicalSubject } from "../../formats/vcon/subject.js";

/** Keys inside an attachment object. */
const ATTACHMENT_KEYS = new Set([
  "arc_attribute_type",
  "arc_blob_identity",
  "arc_blob_hash_alg",
  "arc_blob_hash_value",
  "arc_file_name",
  "arc_display_name",
]);

export interface AttachmentRef {
  attribute: string;
  blobId?: string;
  hashAlg: string;
  hashValue: string;
}

function checkAttachment(
  field: string,
  name: string,
  value: Record<string, unknown>,
): AttachmentRef | undefined {
  const keys = Object.keys(value);
  if (!keys.some((k) => k.startsWith("arc_"))) return undefined;
  for (const k of keys) {
    if (k.startsWith("arc_") && !ATTACHMENT_KEYS.has(k))
      throw badRequest(`${field}.${name}.${k} is not an attachment field`);
  }
  const hashValue = value.arc_blob_hash_value;
  if (typeof hashValue !== "string" || !/^[0-9a-f]{64}$/i.test(hashValue))
    throw badRequest(`${field}.${name}.arc_blob_hash_value must be the SHA-256 of the blob (64 hex digits)`);
  const alg = value.arc_blob_hash_alg ?? "SHA256";
  if (alg !== "SHA256") throw badRequest(`${field}.${name}.arc_blob_hash_alg must be SHA256`);
  const identity = value.arc_blob_identity;
  if (identity !== undefined && (typeof identity !== "string" || !/^blobs\/[0-9a-f-]{36}$/i.test(identity)))
    throw badRequest(`${field}.${name}.arc_blob_identity must be blobs/<uuid>`);
  return {
    attribute: name,
    hashAlg: "SHA256",
    hashValue: hashValue.toLowerCase(),
    ...(identity ? { blobId: (identity as string).slice("blobs/".length).toLowerCase() } : {}),
  };
}

/**
 * The ledger's leaf hash bencodes every attribute, and bencode carries text, whole numbers,
 * lists and maps only: booleans and fractions are refused up front (400), never at commit.
 * A null map value is stored as sent and is left out of the hash (bencode has no null; the
 * ledger's encoding omits it, so an attribute set to null hashes as an absent one, which is
 * what it means). A null inside a list has no such reading and is refused.
 */
function checkEncodable(where: string, value: unknown, depth = 0, inList = false): void {
  if (depth > 32) throw badRequest(`${where} is nested too deeply`);
  if (typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value))) return;
  if (value === null && !inList) return;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) checkEncodable(`${where}[${i}]`, v, depth + 1, true);
    return;
  }
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) checkEncodable(`${where}.${k}`, v, depth + 1);
    return;
  }
  throw badRequest(
    `${where} must be a string, a whole number, a list, an object${inList ? "" : " or null"} (got ${value === null ? "null" : typeof value})`,
  );
}

/**
 * Checks a client-supplied attribute map: encodable values, and the attributes the interface
 * gives a meaning to (attachments, `arc_home_location_identity`). Any other `arc_` name is
 * stored as sent: DataTrails accepts them, and its SDK's own tests send `arc_namespace` and
 * `arc_evidence`, the vCon link `arc_event_type`. `jit_` stays reserved. Returns the
 * attachments the map references.
 */
export function validateAttributes(field: string, attrs: Record<string, unknown>): AttachmentRef[] {
  const refs: AttachmentRef[] = [];
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "") throw badRequest(`${field} has an empty attribute name`);
    if (name.startsWith("jit_")) throw badRequest(`${field}.${name}: the jit_ prefix is reserved`);
    checkEncodable(`${field}.${name}`, value);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const ref = checkAttachment(field, name, value as Record<string, unknown>);
      if (ref) refs.push(ref);
    }
  }
  if (attrs.arc_home_location_identity !== undefined && attrs.arc_home_location_identity !== null) {
    const v = attrs.arc_home_location_identity;
    if (typeof v !== "string" || !/^locations\/[0-9a-f-]{36}$/i.test(v))
      throw badRequest(`${field}.arc_home_location_identity must be locations/<uuid>`);
  }
  return refs;
}

/**
 * The attributes statements are looked up by (an event's `subject`; an asset-free event's
 * `scitt_issuer` too, which a registered statement's carries), within what their indexes hold:
 * a longer value is a 400 here, not a failed write (and with it every other write of its group
 * commit) at commit.
 */
export function checkLookupValues(
  field: string,
  attrs: Record<string, unknown>,
  names: readonly string[],
): void {
  for (const name of names) {
    const v = attrs[name];
    if (v === undefined || v === null) continue;
    // Named in full only when refused: no string made per attribute per event.
    const long = lookupValueProblem(name, v);
    if (long) throw badRequest(`${field}.${long}`);
  }
}

/** Document profile rules for a set of asset attribute changes. */
export function checkDocumentChange(field: string, changes: Record<string, unknown>): void {
  const status = changes.document_status;
  if (status === undefined || status === null) return;
  if (status !== "Published" && status !== "Withdrawn")
    throw badRequest(`${field}.document_status must be Published or Withdrawn`);
  if (status === "Published") {
    for (const k of ["document_hash_value", "document_version"]) {
      if (typeof changes[k] !== "string" || changes[k] === "")
        throw badRequest(`${field}.${k} is required to publish a document version`);
    }
  }
}

/**
 * The attribute map with its `subject` in the one spelling a vCon subject has
 * (`vcon://<lower-case uuid>`): the same map when there is nothing to change. Written so, a
 * record is found by the spelling every reader asks with.
 */
export function withCanonicalSubject(attrs: Record<string, unknown>): Record<string, unknown>;
export function withCanonicalSubject(
  attrs: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined;
export function withCanonicalSubject(
  attrs: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const subject = attrs?.subject;
  if (typeof subject !== "string") return attrs;
  const canonical = canonicalSubject(subject);
  return canonical === subject ? attrs : { ...attrs, subject: canonical };
}
