import { join } from "node:path";
import type { Config } from "../../config.js";
import type { Db } from "../db.js";
import type { BlobStore } from "./blob-store.js";
import { FsBlobStore } from "./fs-store.js";
import { PgBlobStore } from "./pg-store.js";
import { S3BlobStore } from "./s3-store.js";

/**
 * The configured blob store: files in DATA_DIR by default, PostgreSQL rows, or an S3-compatible
 * bucket. The context factory opens it once (`ctx.blobs`).
 */
export function openBlobStore(config: Config, db: Db): BlobStore {
  if (config.blobStore === "postgres") return new PgBlobStore(db);
  if (config.blobStore === "s3" && config.s3) return new S3BlobStore(config.s3);
  return new FsBlobStore(join(config.dataDir, "blobs"));
}
