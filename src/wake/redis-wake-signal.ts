import { Redis } from "ioredis";
import type { Logger } from "pino";
import { LocalWakeSignal, type WakeSignal, waitOn } from "./wake-signal.js";

export interface RedisWakeOptions {
  redisUrl: string;
  /** Channel name prefix, so several deployments (or test runs) can share one Redis. */
  prefix?: string;
  log?: Logger;
}

/**
 * Wake-ups across processes through Redis pub/sub (delivery is best effort, as wake-ups are).
 * Each connection opens on first use: an API-only process only publishes and a worker process
 * only listens, so neither holds a connection it never uses.
 */
export class RedisWakeSignal implements WakeSignal {
  private pub: Redis | undefined;
  private sub: Redis | undefined;
  private ready: Promise<unknown> | undefined;
  private readonly local = new LocalWakeSignal();
  private readonly channel: string;

  constructor(private readonly opts: RedisWakeOptions) {
    this.channel = `${opts.prefix ?? "archivist"}:wake`;
  }

  private connect(role: "pub" | "sub"): Redis {
    // Named, so that `CLIENT LIST` tells which deployment and role holds a connection.
    const c = new Redis(this.opts.redisUrl, { connectionName: `${this.channel}:${role}` });
    c.on("error", (err) => this.opts.log?.debug({ err }, "wake redis error"));
    return c;
  }

  private listen(): Promise<unknown> {
    if (!this.ready) {
      const sub = this.connect("sub");
      this.sub = sub;
      sub.on("message", (_channel: string, topic: string) => void this.local.notify(topic));
      this.ready = sub
        .subscribe(this.channel)
        .catch((err) => this.opts.log?.warn({ err }, "wake subscribe failed"));
    }
    return this.ready;
  }

  /** Resolves once this process listens, so a notify sent afterwards reaches it. */
  async listening(): Promise<void> {
    await this.listen();
  }

  async notify(topic: string): Promise<void> {
    this.pub ??= this.connect("pub");
    await this.pub.publish(this.channel, topic);
  }

  /** Resolves when Redis answers a PING (for /readyz). */
  async ping(): Promise<void> {
    this.pub ??= this.connect("pub");
    await this.pub.ping();
  }

  subscribe(listener: (topic: string) => void): () => void {
    void this.listen();
    return this.local.subscribe(listener);
  }

  wait(timeoutMs: number, topic?: string): Promise<boolean> {
    return waitOn(this, timeoutMs, topic);
  }

  async close(): Promise<void> {
    await this.local.close();
    const open = [this.pub, this.sub].filter((c): c is Redis => c !== undefined);
    await Promise.allSettled(open.map((c) => c.quit()));
  }
}
