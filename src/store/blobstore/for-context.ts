import { join } from "node:path";
import type { Ctx } from "../../context.js";
import type { BlobStore } from "./blob-store.js";
import { FsBlobStore } from "./fs-store.js";
import { PgBlobStore } from "./pg-store.js";
import { S3BlobStore } from "./s3-store.js";

const stores = new WeakMap<Ctx, BlobStore>();

function create(ctx: Ctx): BlobStore {
  if (ctx.config.blobStore === "postgres") return new PgBlobStore(ctx.db);
  if (ctx.config.blobStore === "s3" && ctx.config.s3) return new S3BlobStore(ctx.config.s3);
  return new FsBlobStore(join(ctx.config.dataDir, "blobs"));
}

/** The configured blob store: files in DATA_DIR by default, PostgreSQL rows, or an S3-compatible bucket. */
export function blobStoreFor(ctx: Ctx): BlobStore {
  let s = stores.get(ctx);
  if (!s) {
    s = create(ctx);
    stores.set(ctx, s);
  }
  return s;
}
