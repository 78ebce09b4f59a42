import type { Principal } from "../../context.js";
import { badRequest } from "../../errors/api-error.js";
import { blobHash } from "../../store/blobstore/blobs.js";
import type { Queryable } from "../../store/drivers/db.js";
import { locationExists } from "../../store/records/locations.js";
import type { AttachmentRef } from "./attributes.js";

/**
 * A referenced blob must exist in the tenancy and have exactly the recorded hash (tampering shows
 * at creation). A caller that is not the tenancy's administrator references only blobs it may
 * read directly, its own uploads: another's is "no blob", as one that does not exist, since a
 * hash that does not match would confirm or refute a guess of content it may not read.
 */
export async function checkAttachments(
  tx: Queryable,
  p: Pick<Principal, "tenantId" | "isAdmin" | "issuer" | "subject">,
  refs: AttachmentRef[],
): Promise<void> {
  const uploader = p.isAdmin ? undefined : { issuer: p.issuer, subject: p.subject };
  for (const ref of refs) {
    if (!ref.blobId) continue;
    const hash = await blobHash(tx, p.tenantId, ref.blobId, uploader);
    if (hash === undefined)
      throw badRequest(`${ref.attribute}.arc_blob_identity names no blob of this tenancy`);
    if (hash !== ref.hashValue)
      throw badRequest(`${ref.attribute}.arc_blob_hash_value does not match the blob's SHA-256`);
  }
}

/** `arc_home_location_identity` must name a location of the tenancy. */
export async function checkHomeLocation(
  tx: Queryable,
  tenantId: string,
  attrs: Record<string, unknown>,
): Promise<void> {
  const v = attrs.arc_home_location_identity;
  if (typeof v !== "string") return;
  const id = v.slice("locations/".length);
  if (!(await locationExists(tx, tenantId, id)))
    throw badRequest("arc_home_location_identity names no location of this tenancy");
}
