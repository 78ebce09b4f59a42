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
  /** Deletes the bytes under `hash` (no-op when absent). Only for bytes no blob references. */
  remove(hash: string, within?: Queryable): Promise<void>;
  /** Streams the bytes, or the inclusive byte range `[start, end]`. */
  open(hash: string, range?: { start: number; end: number }): Promise<Readable>;
  /** The whole content (scanning). */
  read(hash: string): Promise<Uint8Array>;
}
