import { readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import type { BlobStore } from "./blob-store.js";
import { signS3Request } from "./sigv4.js";

export interface S3Options {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Blobs as objects `sha256/<hash>` in an S3-compatible bucket (path-style, SigV4). */
export class S3BlobStore implements BlobStore {
  readonly remote = true;

  constructor(private readonly o: S3Options) {}

  private url(hash: string): URL {
    return new URL(`${this.o.endpoint.replace(/\/$/, "")}/${this.o.bucket}/sha256/${hash}`);
  }

  private async request(
    method: string,
    hash: string,
    body = new Uint8Array(),
    extra: Record<string, string> = {},
  ): Promise<Response> {
    const url = this.url(hash);
    const headers = signS3Request({
      method,
      url,
      region: this.o.region,
      accessKeyId: this.o.accessKeyId,
      secretAccessKey: this.o.secretAccessKey,
      payload: body,
      headers: extra,
    });
    const res = await fetch(url, {
      method,
      headers,
      ...(method === "PUT" ? { body: Buffer.from(body) } : {}),
    });
    if (!res.ok && res.status !== 404) throw new Error(`S3 ${method} ${url.pathname} answered ${res.status}`);
    return res;
  }

  async put(hash: string, tmpPath: string): Promise<void> {
    // Content addressed: an object already there holds these very bytes.
    if ((await this.request("HEAD", hash)).ok) return;
    await this.request("PUT", hash, new Uint8Array(await readFile(tmpPath)));
  }

  async remove(hash: string): Promise<void> {
    await this.request("DELETE", hash);
  }

  async read(hash: string): Promise<Uint8Array> {
    const res = await this.request("GET", hash);
    if (!res.ok) throw new Error(`blob content ${hash} is missing from the bucket`);
    return new Uint8Array(await res.arrayBuffer());
  }

  async open(hash: string, range?: { start: number; end: number }): Promise<Readable> {
    const res = await this.request(
      "GET",
      hash,
      new Uint8Array(),
      range ? { range: `bytes=${range.start}-${range.end}` } : {},
    );
    if (!res.ok) throw new Error(`blob content ${hash} is missing from the bucket`);
    return Readable.from([Buffer.from(await res.arrayBuffer())]);
  }
}
