import type { Readable } from "node:stream";
import type { Queryable } from "../db.js";

/**
 * Content-addressed storage of blob bytes, keyed by their SHA-256 (hex): equal bytes are stored once.
 * `within` is the caller's open transaction: a store that keeps bytes in the database writes
 * through it (so they commit or roll back with the blob record, and an embedded database with
 * one connection is not asked for a second); the others ignore it.
 */
export interface BlobStore {
  /** Moves the finished upload at `tmpPath` into the store under `hash` (no-op when already there). */
  put(hash: string, tmpPath: string, size: number, within?: Queryable): Promise<void>;
  /**
   * Deletes the bytes under `hash` (no-op when absent); only for bytes no blob references.
   * Offered by the stores whose `put` is local (a rename, a row): an upload to them stores,
   * re-checks the quota and records under one lock on the content, inside one transaction,
   * and a refused upload takes its bytes back. A remote store's `put` is a network upload
   * that must not hold a database connection and locks that long, so its refused uploads
   * leave their bytes, which a later upload of the same content reuses.
   */
  remove?(hash: string, within?: Queryable): Promise<void>;
  /** Streams the bytes, or the inclusive byte range `[start, end]`. */
  open(hash: string, range?: { start: number; end: number }): Promise<Readable>;
  /** The whole content (scanning). */
  read(hash: string): Promise<Uint8Array>;
}
