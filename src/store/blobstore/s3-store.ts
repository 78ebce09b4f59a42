import { readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { AwsClient } from "aws4fetch";
import type { BlobStore } from "./blob-store.js";
import { checkedBytes, verifiedBytes } from "./verified-bytes.js";

export interface S3Options {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

// SHA-256 of no bytes: the signed payload hash of HEAD, GET and DELETE.
const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/** Blobs as objects `sha256/<hash>` in an S3-compatible bucket (path-style, SigV4 by aws4fetch). */
export class S3BlobStore implements BlobStore {
  readonly remote = true;
  private readonly client: AwsClient;

  constructor(private readonly o: S3Options) {
    this.client = new AwsClient({
      accessKeyId: o.accessKeyId,
      secretAccessKey: o.secretAccessKey,
      region: o.region,
      service: "s3",
      // Our own code retries where it must (the write path); a silent retry here would hide a
      // refused signature behind seconds of back-off.
      retries: 0,
    });
  }

  private url(hash: string): string {
    return `${this.o.endpoint.replace(/\/$/, "")}/${this.o.bucket}/sha256/${hash}`;
  }

  private async request(
    method: string,
    hash: string,
    body?: Uint8Array,
    extra: Record<string, string> = {},
  ): Promise<Response> {
    const url = this.url(hash);
    const res = await this.client.fetch(url, {
      method,
      // The payload hash is signed, not UNSIGNED-PAYLOAD: the bucket refuses bytes that differ
      // from what was signed. An object's key is its content hash, so a PUT signs exactly that.
      headers: { ...extra, "x-amz-content-sha256": body ? hash : EMPTY_SHA256 },
      ...(body ? { body: Buffer.from(body) } : {}),
    });
    if (!res.ok && res.status !== 404) {
      await res.body?.cancel();
      throw new Error(`S3 ${method} ${new URL(url).pathname} answered ${res.status}`);
    }
    return res;
  }

  async put(hash: string, tmpPath: string): Promise<void> {
    // Content addressed: an object already there holds these very bytes.
    const head = await this.request("HEAD", hash);
    if (head.ok) return;
    await (await this.request("PUT", hash, new Uint8Array(await readFile(tmpPath)))).body?.cancel();
  }

  async remove(hash: string): Promise<void> {
    await (await this.request("DELETE", hash)).body?.cancel();
  }

  // Whoever can write the bucket can swap an object's bytes: what is read is checked against its
  // key, the hash the service recorded, before it is served as that blob.
  async read(hash: string): Promise<Uint8Array> {
    const res = await this.request("GET", hash);
    if (!res.ok) throw new Error(`blob content ${hash} is missing from the bucket`);
    return checkedBytes(new Uint8Array(await res.arrayBuffer()), hash);
  }

  /** The object streamed whole and hashed as it goes; a range is cut from it (a range alone cannot be checked). */
  async open(hash: string, range?: { start: number; end: number }): Promise<Readable> {
    const res = await this.request("GET", hash);
    if (!res.ok || !res.body) throw new Error(`blob content ${hash} is missing from the bucket`);
    return verifiedBytes(Readable.fromWeb(res.body as WebReadableStream), hash, range);
  }
}
