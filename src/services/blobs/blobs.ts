import type { Readable } from "node:stream";
import type { Ctx, Principal } from "../../context.js";
import { badRequest, notFound } from "../../errors/api-error.js";
import { isoTime } from "../../formats/ids.js";
import { type BlobRow, getBlob } from "../../store/blobstore/blobs.js";

/** API shape of blob metadata. */
export function blobOut(b: BlobRow) {
  return {
    identity: `blobs/${b.id}`,
    hash: { alg: "SHA256", value: b.hash },
    mime_type: b.mime_type,
    size: Number(b.size),
    issuer: b.issuer,
    subject: b.subject,
    tenantid: `tenant/${b.tenant_id}`,
    timestamp_accepted: isoTime(b.timestamp_accepted),
    scanned_status: b.scanned_status,
    scanned_bad_reason: b.scanned_bad_reason,
    scanned_reason: b.scanned_bad_reason,
    scanned_timestamp: b.scanned_timestamp ? isoTime(b.scanned_timestamp) : "",
  };
}

/**
 * A blob read directly (not through a record): its uploader or an administrator of its tenancy.
 * Another's blob is not found, as one that does not exist: a refusal would tell that the id is a blob.
 */
export async function blobForCaller(ctx: Pick<Ctx, "db">, p: Principal, id: string): Promise<BlobRow> {
  const uploader = p.isAdmin ? undefined : { issuer: p.issuer, subject: p.subject };
  const blob = await getBlob(ctx.db, p.tenantId, id, uploader);
  if (!blob) throw notFound("blob");
  return blob;
}

/** Download rules of the wire notes: `strict` needs SCANNED_OK; SCANNED_BAD needs `allow_insecure`. */
export function checkServable(blob: BlobRow, opts: { strict: boolean; allowInsecure: boolean }): void {
  if (opts.strict && blob.scanned_status !== "SCANNED_OK")
    throw badRequest(`blob is ${blob.scanned_status}; strict=true serves only SCANNED_OK blobs`);
  if (blob.scanned_status === "SCANNED_BAD" && !opts.allowInsecure)
    throw badRequest(
      `blob was found bad (${blob.scanned_bad_reason}); add allow_insecure=true to download it anyway`,
    );
}

/** Parses a single `bytes=` range; undefined for none, 'unsatisfiable' when out of bounds. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | "unsatisfiable" | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return undefined;
  let start: number;
  let end: number;
  if (m[1] === "") {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  return start > end || start >= size ? "unsatisfiable" : { start, end };
}

/** Opens the bytes of a blob (whole or a range). */
export function openBlob(
  ctx: Pick<Ctx, "blobs">,
  blob: BlobRow,
  range?: { start: number; end: number },
): Promise<Readable> {
  return ctx.blobs.open(blob.hash, range);
}

export type { BlobRow };
