import type { Readable } from "node:stream";
import type { Queryable } from "../drivers/db.js";

/**
 * Content-addressed storage of blob bytes, keyed by their SHA-256 (hex): equal bytes are stored once.
 * `within` is the caller's open transaction: a store that keeps bytes in the database writes
 * through it (so they commit or roll back with the blob record, and an embedded database with
 * one connection is not asked for a second); the others ignore it.
 */
export interface BlobStore {
  /**
   * Whether `put` is a network transfer (S3): it must not hold a database connection and the
   * content lock that long, so an upload puts once before its transaction and again under the
   * lock, where the second put only checks that the bytes are still there (a refused upload of
   * the same content may have removed them in between) and stores them again if not.
   */
  readonly remote: boolean;
  /**
   * Stores the finished upload at `tmpPath` under `hash` (no-op when already there). It may
   * move the file away; the caller removes whatever is left.
   */
  put(hash: string, tmpPath: string, size: number, within?: Queryable): Promise<void>;
  /**
   * Deletes the bytes under `hash` (no-op when absent); only for bytes no blob references.
   * An upload stores, re-checks the quota and records under one lock on the content, inside
   * one transaction, and a refused upload takes back bytes that no blob references.
   */
  remove(hash: string, within?: Queryable): Promise<void>;
  /** Streams the bytes, or the inclusive byte range `[start, end]`. */
  open(hash: string, range?: { start: number; end: number }): Promise<Readable>;
  /** The whole content (scanning). */
  read(hash: string): Promise<Uint8Array>;
}
