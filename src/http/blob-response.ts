import type { FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../context.js";
import type { BlobRow } from "../services/blobs/blobs.js";
import { checkServable, openBlob, parseRange } from "../services/blobs/blobs.js";
import { scalar } from "../services/records/list-query.js";

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
