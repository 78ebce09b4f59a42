import { pipeline } from "node:stream/promises";
import type { Request, Response } from "express";
import type { Ctx } from "../context.js";
import { checkServable, openBlob, parseRange } from "../services/blobs.js";
import { scalar } from "../services/list-query.js";
import type { BlobRow } from "../store/blobs.js";

/** Sends a blob's bytes with content-type, length, etag = hash, and single-range support. */
export async function sendBlob(
  ctx: Ctx,
  req: Request,
  res: Response,
  blob: BlobRow,
  pairs: Array<[string, string]>,
): Promise<undefined> {
  checkServable(blob, {
    strict: scalar(pairs, "strict") === "true",
    allowInsecure: scalar(pairs, "allow_insecure") === "true",
  });
  const size = Number(blob.size);
  const range = parseRange(req.headers.range, size);
  res.setHeader("content-type", blob.mime_type);
  res.setHeader("etag", `"${blob.hash}"`);
  res.setHeader("accept-ranges", "bytes");
  if (range === "unsatisfiable") {
    res.status(416).setHeader("content-range", `bytes */${size}`);
    res.json({ code: 11, message: "requested range is not satisfiable", details: [] });
    return undefined;
  }
  if (range) {
    res.status(206).setHeader("content-range", `bytes ${range.start}-${range.end}/${size}`);
    res.setHeader("content-length", String(range.end - range.start + 1));
  } else res.setHeader("content-length", String(size));
  await pipeline(await openBlob(ctx, blob, range), res);
  return undefined;
}
