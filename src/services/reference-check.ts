import { badRequest } from "../core/api/api-error.js";
import type { Queryable } from "../store/db.js";
import type { AttachmentRef } from "./attributes.js";

/** A referenced blob must exist in the tenancy and have exactly the recorded hash (tampering shows at creation). */
export async function checkAttachments(
  tx: Queryable,
  tenantId: string,
  refs: AttachmentRef[],
): Promise<void> {
  for (const ref of refs) {
    if (!ref.blobId) continue;
    const rows = await tx.query<{ hash: string }>("select hash from blobs where tenant_id = $1 and id = $2", [
      tenantId,
      ref.blobId,
    ]);
    const blob = rows[0];
    if (!blob) throw badRequest(`${ref.attribute}.arc_blob_identity names no blob of this tenancy`);
    if (blob.hash !== ref.hashValue)
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
  const rows = await tx.query("select 1 from locations where tenant_id = $1 and id = $2", [tenantId, id]);
  if (rows.length === 0) throw badRequest("arc_home_location_identity names no location of this tenancy");
}
