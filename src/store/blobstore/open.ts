import { join } from "node:path";
import type { Db } from "../drivers/db.js";
import type { BlobStore } from "./blob-store.js";
import { FsBlobStore } from "./fs-store.js";
import { PgBlobStore } from "./pg-store.js";
import { S3BlobStore, type S3Options } from "./s3-store.js";

/** What opening the blob store reads of the configuration (src/config.ts's `Config` has it). */
interface BlobStoreSettings {
  readonly dataDir: string;
  readonly blobStore: "fs" | "postgres" | "s3";
  readonly s3: S3Options | undefined;
}

/**
 * The configured blob store: files in DATA_DIR by default, PostgreSQL rows, or an S3-compatible
 * bucket. The context factory opens it once (`ctx.blobs`).
 */
export function openBlobStore(config: BlobStoreSettings, db: Db): BlobStore {
  if (config.blobStore === "postgres") return new PgBlobStore(db);
  if (config.blobStore === "s3" && config.s3) return new S3BlobStore(config.s3);
  return new FsBlobStore(join(config.dataDir, "blobs"));
}
