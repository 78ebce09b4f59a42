import type { FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../context.js";
import type { BlobRow } from "../services/blobs/blobs.js";
import { checkServable, openBlob, parseRange } from "../services/blobs/blobs.js";
import { scalar } from "../services/records/list-query.js";

/**
 * What every download of stored user bytes carries, whatever its type: the bytes are saved,
 * never rendered as a page of ours (attachment), never re-typed by a browser's sniffing
 * (nosniff), and if a browser renders them anyway they run in a sandbox with an opaque origin
 * and may load nothing (CSP) — so an HTML, SVG or XHTML blob cannot script our origin, read
 * its storage, or call the API with a signed-in tab's credentials.
 */
const USER_BYTES_HEADERS: Readonly<Record<string, string>> = {
  "content-disposition": "attachment",
  "x-content-type-options": "nosniff",
  "content-security-policy": "sandbox; default-src 'none'; frame-ancestors 'none'",
};

/** Sends a blob's bytes with content-type, length, etag = hash, and single-range support. */
export async function sendBlob(
  ctx: Ctx,
  req: FastifyRequest,
  res: FastifyReply,
  blob: BlobRow,
  pairs: Array<[string, string]>,
): Promise<FastifyReply> {
  checkServable(blob, {
    strict: scalar(pairs, "strict") === "true",
    allowInsecure: scalar(pairs, "allow_insecure") === "true",
  });
  res.headers(USER_BYTES_HEADERS);
  const size = Number(blob.size);
  const range = parseRange(req.headers.range, size);
  res.header("etag", `"${blob.hash}"`).header("accept-ranges", "bytes");
  if (range === "unsatisfiable")
    return res
      .code(416)
      .header("content-range", `bytes */${size}`)
      .send({ code: 11, message: "requested range is not satisfiable", details: [] });
  res.header("content-type", blob.mime_type);
  if (range)
    res
      .code(206)
      .header("content-range", `bytes ${range.start}-${range.end}/${size}`)
      .header("content-length", String(range.end - range.start + 1));
  else res.header("content-length", String(size));
  return res.send(await openBlob(ctx, blob, range));
}
