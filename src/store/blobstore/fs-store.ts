import { createReadStream } from "node:fs";
import { mkdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import type { BlobStore } from "./blob-store.js";

/** Blobs as files under `<root>/sha256/<2 hex>/<hash>`, written by rename so a crash never leaves half a blob. */
export class FsBlobStore implements BlobStore {
  readonly remote = false;

  constructor(private readonly root: string) {}

  private path(hash: string): string {
    return join(this.root, "sha256", hash.slice(0, 2), hash);
  }

  async put(hash: string, tmpPath: string): Promise<void> {
    const target = this.path(hash);
    const exists = await stat(target).then(
      () => true,
      () => false,
    );
    if (exists) {
      await rm(tmpPath, { force: true });
      return;
    }
    await mkdir(join(this.root, "sha256", hash.slice(0, 2)), { recursive: true });
    await rename(tmpPath, target);
  }

  async remove(hash: string): Promise<void> {
    await rm(this.path(hash), { force: true });
  }

  async open(hash: string, range?: { start: number; end: number }): Promise<Readable> {
    return createReadStream(this.path(hash), range ? { start: range.start, end: range.end } : {});
  }

  async read(hash: string): Promise<Uint8Array> {
    return new Uint8Array(await readFile(this.path(hash)));
  }
}
