import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { WakeSignal } from "./types.js";
import { LocalWakeSignal, waitOn } from "./wake-signal.js";

export interface RedisWakeOptions {
  redisUrl: string;
  /** Channel name prefix, so several deployments (or test runs) can share one Redis. */
  prefix?: string;
  log?: Logger;
}

/** Wake-ups across processes through Redis pub/sub (delivery is best effort, as wake-ups are). */
export class RedisWakeSignal implements WakeSignal {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly local = new LocalWakeSignal();
  private readonly channel: string;
  private readonly ready: Promise<unknown>;

  constructor(opts: RedisWakeOptions) {
    this.channel = `${opts.prefix ?? "archivist"}:wake`;
    this.pub = new Redis(opts.redisUrl);
    this.sub = new Redis(opts.redisUrl);
    for (const c of [this.pub, this.sub])
      c.on("error", (err) => opts.log?.debug({ err }, "wake redis error"));
    this.sub.on("message", (_channel: string, topic: string) => void this.local.notify(topic));
    this.ready = this.sub
      .subscribe(this.channel)
      .catch((err) => opts.log?.warn({ err }, "wake subscribe failed"));
  }

  /** Resolves once this process listens, so a notify sent afterwards reaches it. */
  async listening(): Promise<void> {
    await this.ready;
  }

  async notify(topic: string): Promise<void> {
    await this.pub.publish(this.channel, topic);
  }

  subscribe(listener: (topic: string) => void): () => void {
    return this.local.subscribe(listener);
  }

  wait(timeoutMs: number, topic?: string): Promise<boolean> {
    return waitOn(this, timeoutMs, topic);
  }

  async close(): Promise<void> {
    await this.local.close();
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
  }
}
