import { badRequest } from "../core/api/api-error.js";

/** Reserved names clients may set (the interface's documented list). */
const DOCUMENTED_ARC = new Set([
  "arc_display_name",
  "arc_display_type",
  "arc_description",
  "arc_home_location_identity",
  "arc_primary_image",
  "arc_profile",
  "arc_firmware_version",
  "arc_serial_number",
  "arc_correlation_value",
]);
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
 * lists and maps only: null, booleans and fractions are refused up front (400), never at commit.
 */
function checkEncodable(where: string, value: unknown, depth = 0): void {
  if (depth > 32) throw badRequest(`${where} is nested too deeply`);
  if (typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value))) return;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) checkEncodable(`${where}[${i}]`, v, depth + 1);
    return;
  }
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) checkEncodable(`${where}.${k}`, v, depth + 1);
    return;
  }
  throw badRequest(
    `${where} must be a string, a whole number, a list or an object (got ${value === null ? "null" : typeof value})`,
  );
}

/** Checks a client-supplied attribute map: reserved prefixes, encodable values, attachment objects. Returns the attachments it references. */
export function validateAttributes(field: string, attrs: Record<string, unknown>): AttachmentRef[] {
  const refs: AttachmentRef[] = [];
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "") throw badRequest(`${field} has an empty attribute name`);
    if (name.startsWith("jit_")) throw badRequest(`${field}.${name}: the jit_ prefix is reserved`);
    if (name.startsWith("arc_") && !DOCUMENTED_ARC.has(name))
      throw badRequest(`${field}.${name}: the arc_ prefix is reserved`);
    checkEncodable(`${field}.${name}`, value);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const ref = checkAttachment(field, name, value as Record<string, unknown>);
      if (ref) refs.push(ref);
    }
  }
  if ("arc_home_location_identity" in attrs) {
    const v = attrs.arc_home_location_identity;
    if (typeof v !== "string" || !/^locations\/[0-9a-f-]{36}$/i.test(v))
      throw badRequest(`${field}.arc_home_location_identity must be locations/<uuid>`);
  }
  return refs;
}

/** Document profile rules for a set of asset attribute changes. */
export function checkDocumentChange(field: string, changes: Record<string, unknown>): void {
  const status = changes.document_status;
  if (status === undefined) return;
  if (status !== "Published" && status !== "Withdrawn")
    throw badRequest(`${field}.document_status must be Published or Withdrawn`);
  if (status === "Published") {
    for (const k of ["document_hash_value", "document_version"]) {
      if (typeof changes[k] !== "string" || changes[k] === "")
        throw badRequest(`${field}.${k} is required to publish a document version`);
    }
  }
}
