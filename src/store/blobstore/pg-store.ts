import { readFile, rm } from "node:fs/promises";
import { Readable } from "node:stream";
import type { Queryable } from "../drivers/db.js";
import type { BlobStore } from "./blob-store.js";

/** Blobs as rows of `blob_contents` (bytea): one backup covers records and bytes alike. */
export class PgBlobStore implements BlobStore {
  readonly remote = false;

  constructor(private readonly db: Queryable) {}

  async put(hash: string, tmpPath: string, _size: number, within: Queryable = this.db): Promise<void> {
    const bytes = await readFile(tmpPath);
    await within.query("insert into blob_contents (hash, bytes) values ($1, $2) on conflict do nothing", [
      hash,
      bytes,
    ]);
    await rm(tmpPath, { force: true });
  }

  async remove(hash: string, within: Queryable = this.db): Promise<void> {
    await within.query("delete from blob_contents where hash = $1", [hash]);
  }

  async read(hash: string): Promise<Uint8Array> {
    const rows = await this.db.query<{ bytes: Uint8Array }>(
      "select bytes from blob_contents where hash = $1",
      [hash],
    );
    const b = rows[0]?.bytes;
    if (!b) throw new Error(`blob content ${hash} is missing`);
    return new Uint8Array(b);
  }

  async open(hash: string, range?: { start: number; end: number }): Promise<Readable> {
    const bytes = await this.read(hash);
    return Readable.from([Buffer.from(range ? bytes.subarray(range.start, range.end + 1) : bytes)]);
  }
}
