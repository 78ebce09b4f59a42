import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { parseVcon, type VconDocument } from "../vcon.js";
import type { VconStore } from "./vcon-store.js";

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * vCons under `vcon:<uuid>` as the conserver keeps them: RedisJSON documents (`JSON.GET key .`),
 * or plain string keys when the Redis has no RedisJSON module (detected on first use).
 */
export class RedisVconStore implements VconStore {
  /** undefined until the first JSON command tells whether RedisJSON is loaded. */
  private json: boolean | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly opts: { keyPrefix?: string; log?: Logger } = {},
  ) {}

  key(uuid: string): string {
    return `${this.opts.keyPrefix ?? "vcon:"}${uuid}`;
  }

  /** Reads and parses the vCon; null when the key does not exist. */
  async get(uuid: string): Promise<VconDocument | null> {
    const key = this.key(uuid);
    let text: string | null = null;
    if (this.json !== false) {
      try {
        text = (await this.redis.call("JSON.GET", key, ".")) as string | null;
        this.json = true;
        return text === null ? null : parseVcon(text);
      } catch (err) {
        if (!this.fallBack(err)) throw err;
      }
    }
    const bytes = await this.redis.getBuffer(key);
    return bytes === null ? null : parseVcon(new Uint8Array(bytes));
  }

  /** Writes the vCon back in the key's own format, keeping its expiry. */
  async put(uuid: string, json: string): Promise<void> {
    const key = this.key(uuid);
    if (this.json !== false) {
      try {
        await this.redis.call("JSON.SET", key, "$", json);
        this.json = true;
        return;
      } catch (err) {
        if (!this.fallBack(err)) throw err;
      }
    }
    await this.redis.set(key, json, "KEEPTTL");
  }

  /** True when a JSON command failed because the module is absent or the key is a plain string. */
  private fallBack(err: unknown): boolean {
    const m = message(err);
    if (/unknown command/i.test(m)) {
      // Said once: reads in flight together all fail the same way before the first one answers.
      if (this.json !== false)
        this.opts.log?.info("RedisJSON not loaded: vCons are read as plain string keys");
      this.json = false;
      return true;
    }
    return /WRONGTYPE|wrong kind|not a json/i.test(m);
  }
}
