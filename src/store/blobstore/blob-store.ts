import type { Readable } from "node:stream";

/** Content-addressed storage of blob bytes, keyed by their SHA-256 (hex): equal bytes are stored once. */
export interface BlobStore {
  /** Moves the finished upload at `tmpPath` into the store under `hash` (no-op when already there). */
  put(hash: string, tmpPath: string, size: number): Promise<void>;
  /** Streams the bytes, or the inclusive byte range `[start, end]`. */
  open(hash: string, range?: { start: number; end: number }): Promise<Readable>;
  /** The whole content (scanning). */
  read(hash: string): Promise<Uint8Array>;
}
