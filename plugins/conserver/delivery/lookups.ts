import { Coalescer, type Outcome } from "../../../src/batching/coalescer.js";
import type { ArchivistClient } from "./client.js";

/** What one list request found for a group of look-ups. */
interface ManyFound<R> {
  /** Each look-up's answer, by its key. */
  found: Map<string, R>;
  /** False when the page came back full: keys missing from `found` may lie beyond it. */
  complete: boolean;
}

/** How to look one thing up in a backend, alone or as one of many. */
export interface LookupSpec<Q, R> {
  /** Identifies a look-up; the same key means the same answer. */
  key(q: Q): string;
  /** One request for one look-up (every backend answers it). */
  one(client: ArchivistClient, q: Q): Promise<R | undefined>;
  /** One request for all of `qs`, the key that differs between them repeated. */
  many(client: ArchivistClient, qs: Q[]): Promise<ManyFound<R>>;
}

/** Whether a backend reads a repeated query key as any of its values. */
type AnyOf = "unknown" | "probing" | "yes" | "no";

const MAX_GROUP = 100;
const IN_FLIGHT = 2;

/**
 * Look-ups made by concurrent deliveries to one backend, sent as one list request: the wire
 * conventions read a repeated query key as "any of its values", so one request asks for many
 * vCons' assets or events, and a busy worker pays one request where it paid one per vCon.
 *
 * A backend is trusted with that only once it has shown it. If it read a repeated key as "all
 * of them" or kept only one value, a group look-up would find nothing and the delivery would
 * create a second asset for a vCon. So each look-up is its own request until two things are
 * known to exist; one probe then asks for both together, and only a backend that finds both
 * gets group look-ups. A backend that fails the probe keeps single look-ups for good.
 */
export class AnyOfLookups<Q, R> {
  private anyOf: AnyOf = "unknown";
  private readonly known = new Map<string, Q>();
  private readonly groups: Coalescer<{ client: ArchivistClient; q: Q }, R | undefined>;

  constructor(private readonly spec: LookupSpec<Q, R>) {
    this.groups = new Coalescer({
      runGroup: (items) => this.runGroup(items),
      maxGroup: MAX_GROUP,
      inFlight: IN_FLIGHT,
    });
  }

  /** Whether group look-ups are in use (tests, metrics). */
  get grouped(): boolean {
    return this.anyOf === "yes";
  }

  /** The answer to `q`: what a single look-up would give, from a group request when trusted. */
  find(client: ArchivistClient, q: Q): Promise<R | undefined> {
    if (this.anyOf === "yes") return this.groups.submit({ client, q });
    return this.spec.one(client, q);
  }

  /** `q` is known to exist on the backend now (created, or found); two such let the probe run. */
  exists(client: ArchivistClient, q: Q): void {
    if (this.anyOf !== "unknown") return;
    const key = this.spec.key(q);
    if (!this.known.has(key)) this.known.set(key, q);
    if (this.known.size < 2) return;
    const pair = [...this.known.values()].slice(-2);
    this.anyOf = "probing";
    void this.probe(client, pair);
  }

  private async probe(client: ArchivistClient, pair: Q[]): Promise<void> {
    try {
      const { found } = await this.spec.many(client, pair);
      this.anyOf = pair.every((q) => found.has(this.spec.key(q))) ? "yes" : "no";
      this.known.clear();
    } catch {
      // Could not ask (the backend was down, the job was cancelled): ask again with later ones.
      this.anyOf = "unknown";
    }
  }

  private async runGroup(
    items: Array<{ client: ArchivistClient; q: Q }>,
  ): Promise<Array<Outcome<R | undefined>>> {
    const first = items[0];
    if (!first) return [];
    const distinct = new Map(items.map((i) => [this.spec.key(i.q), i.q]));
    const { found, complete } = await this.spec.many(first.client, [...distinct.values()]);
    // A full page may have left some matches out: those are asked for alone, as before.
    const alone = new Map<string, Promise<R | undefined>>();
    if (!complete)
      for (const [key, q] of distinct) if (!found.has(key)) alone.set(key, this.spec.one(first.client, q));
    return Promise.all(
      items.map(async (i) => {
        const key = this.spec.key(i.q);
        try {
          return { row: found.get(key) ?? (await alone.get(key)) };
        } catch (error) {
          return { error };
        }
      }),
    );
  }
}

/**
 * A page size that a group's matches fit in with room to spare: four per look-up (one vCon's
 * payload may carry several operations), at most the API's 500.
 */
export function groupPageSize(lookups: number): number {
  return Math.min(500, Math.max(10, 4 * lookups));
}

/**
 * One set of look-ups per backend and credentials: what one backend has shown says nothing of
 * another, and a group is sent with one member's client, which must be able to send them all.
 */
export class BackendLookups<Q, R> {
  private readonly byCredentials = new Map<string, AnyOfLookups<Q, R>>();

  constructor(private readonly spec: LookupSpec<Q, R>) {}

  /** `credentials`: the clients' `credentialsKey`. */
  of(credentials: string): AnyOfLookups<Q, R> {
    let l = this.byCredentials.get(credentials);
    if (!l) {
      l = new AnyOfLookups(this.spec);
      this.byCredentials.set(credentials, l);
    }
    return l;
  }
}
