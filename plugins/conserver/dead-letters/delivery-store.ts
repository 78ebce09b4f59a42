import type { Redis } from "ioredis";
import type { DeliveryJob } from "../delivery/job.js";

/** A delivery job that failed for good, with why. */
export interface DeadLetter {
  /** The job's idempotency key (one entry per key: a later failure replaces it). */
  id: string;
  job: DeliveryJob;
  reason: string;
  /** HTTP status of the refusal, when there was one. */
  status?: number;
  attempts: number;
  failedAt: string;
}

/** Where failed delivery jobs wait for an operator (`archivist conserver dlq list|retry`). */
export interface DeadLetterStore {
  push(entry: DeadLetter): Promise<void>;
  /** Entries, oldest first. */
  list(limit?: number): Promise<DeadLetter[]>;
  /** Removes and returns one entry (null when there is none with that id). */
  take(id: string): Promise<DeadLetter | null>;
  size(): Promise<number>;
}

const byTime = (a: DeadLetter, b: DeadLetter) =>
  a.failedAt.localeCompare(b.failedAt) || a.id.localeCompare(b.id);

/** Dead letters in memory (the embedded default; lost with the process, like its queue). */
export class MemoryDeadLetterStore implements DeadLetterStore {
  private readonly entries = new Map<string, DeadLetter>();

  async push(entry: DeadLetter): Promise<void> {
    this.entries.set(entry.id, entry);
  }

  async list(limit = 100): Promise<DeadLetter[]> {
    return [...this.entries.values()].sort(byTime).slice(0, limit);
  }

  async take(id: string): Promise<DeadLetter | null> {
    const e = this.entries.get(id) ?? null;
    this.entries.delete(id);
    return e;
  }

  async size(): Promise<number> {
    return this.entries.size;
  }
}

/** Dead letters in a Redis hash `<prefix>:dlq:<queue>` (id → JSON), kept until re-driven. */
export class RedisDeadLetterStore implements DeadLetterStore {
  constructor(
    private readonly redis: Redis,
    readonly key: string,
  ) {}

  async push(entry: DeadLetter): Promise<void> {
    await this.redis.hset(this.key, entry.id, JSON.stringify(entry));
  }

  async list(limit = 100): Promise<DeadLetter[]> {
    const all = await this.redis.hvals(this.key);
    const out: DeadLetter[] = [];
    for (const v of all) {
      try {
        out.push(JSON.parse(v) as DeadLetter);
      } catch {
        // An entry someone else wrote badly is skipped, not fatal to listing.
      }
    }
    return out.sort(byTime).slice(0, limit);
  }

  async take(id: string): Promise<DeadLetter | null> {
    // HGET and HDEL in one transaction: two operators re-driving at once cannot both take an entry.
    const res = await this.redis.multi().hget(this.key, id).hdel(this.key, id).exec();
    const v = res?.[0]?.[1];
    if (typeof v !== "string" || res?.[1]?.[1] !== 1) return null;
    try {
      return JSON.parse(v) as DeadLetter;
    } catch {
      return null;
    }
  }

  async size(): Promise<number> {
    return this.redis.hlen(this.key);
  }
}

/** The Redis key of a delivery queue's dead letters. */
export function deadLetterKey(prefix: string, queue: string): string {
  return `${prefix}:dlq:${queue}`;
}
