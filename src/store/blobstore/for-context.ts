import { join } from "node:path";
import type { Ctx } from "../../context.js";
import type { BlobStore } from "./blob-store.js";
import { FsBlobStore } from "./fs-store.js";
import { PgBlobStore } from "./pg-store.js";

const stores = new WeakMap<Ctx, BlobStore>();

/** The configured blob store of this service (files in DATA_DIR by default, or PostgreSQL rows). */
export function blobStoreFor(ctx: Ctx): BlobStore {
  let s = stores.get(ctx);
  if (!s) {
    if (ctx.config.blobStore === "s3")
      throw new Error("the s3 blob store is not available in this build; use fs or postgres");
    s =
      ctx.config.blobStore === "postgres"
        ? new PgBlobStore(ctx.db)
        : new FsBlobStore(join(ctx.config.dataDir, "blobs"));
    stores.set(ctx, s);
  }
  return s;
}
