import { Coalescer, type Outcome, settle } from "../../../src/batching/coalescer.js";
import { isRecord } from "../vcon.js";
import type { ArchivistClient } from "./client.js";
import { PermanentDeliveryError, TransientDeliveryError } from "./errors.js";

/** What a backend answers for a path it does not have. */
export const NOT_OFFERED = new Set([404, 405, 501]);

/** The service's own cap on a batch (`MAX_BATCH_ITEMS`). */
const MAX_GROUP = 100;
const IN_FLIGHT = 2;

/** How to send one kind of write to a backend: alone, or many in one batch request of this service. */
export interface BatchSpec<B, R> {
  /** The batch extension, as errors name it. */
  name: string;
  /** One request for one write (every backend answers it). */
  one(client: ArchivistClient, body: B): Promise<R>;
  /** One request for all of `bodies`, answered `{responses}`: per body, in order, its result or `{error}`. */
  many(client: ArchivistClient, bodies: B[]): Promise<unknown>;
}

interface Write<B> {
  client: ArchivistClient;
  body: B;
}

/** One item's failure as the delivery's errors: a 429 or 5xx may pass, any other refusal will not. */
function itemError(name: string, e: unknown): Error {
  const err = isRecord(e) ? e : {};
  const status = typeof err.status === "number" ? err.status : 500;
  const message = `${name} item: ${typeof err.message === "string" ? err.message : "failed"} (${status})`;
  return status === 429 || status >= 500
    ? new TransientDeliveryError(message, status)
    : new PermanentDeliveryError(message, status);
}

/**
 * Writes of concurrent deliveries to one backend, sent alone or, when several are made at once,
 * in one batch request (an extension of this service: its items are committed and answered as
 * their own requests would be, so a delivery sees the same answer either way). What a batch
 * saves is the request per write, its parsing, authentication and reply, on both sides. A backend
 * that answers the batch path as one it does not have gets single requests from then on, which
 * are what it had before.
 *
 * As a single write, a batch is sent once: after a 5xx or a lost answer, what it stored is
 * unknown, and its deliveries' next attempts look first.
 */
export class BackendBatches<B, R> {
  /** By credentials: any member's client may send its group. */
  private readonly groups = new Map<string, Coalescer<Write<B>, R>>();
  /** Backends (by credentials) that answered the batch path as one they do not have. */
  private readonly single = new Set<string>();

  constructor(private readonly spec: BatchSpec<B, R>) {}

  /** What the single request answers for `body`, sent alone or in a batch with others. */
  send(client: ArchivistClient, body: B): Promise<R> {
    if (this.single.has(client.credentials)) return this.spec.one(client, body);
    let g = this.groups.get(client.credentials);
    if (!g) {
      g = new Coalescer({
        runGroup: (items) => this.runGroup(items),
        maxGroup: MAX_GROUP,
        inFlight: IN_FLIGHT,
      });
      this.groups.set(client.credentials, g);
    }
    return g.submit({ client, body });
  }

  private async runGroup(items: Array<Write<B>>): Promise<Array<Outcome<R>>> {
    const [first] = items;
    if (!first) return [];
    if (items.length === 1 || this.single.has(first.client.credentials)) return this.alone(items);
    let answer: unknown;
    try {
      // Sent with one member's client: grouped by credentials, any of them may send all.
      answer = await this.spec.many(
        first.client,
        items.map((i) => i.body),
      );
    } catch (err) {
      if (!(err instanceof PermanentDeliveryError)) throw err;
      if (NOT_OFFERED.has(err.status ?? 0)) this.single.add(first.client.credentials);
      // Refused as a whole (a 4xx comes before any item is acted on: too large, malformed):
      // each item is sent alone, so that one item's refusal stays its own and the rest go through.
      return this.alone(items);
    }
    const responses = isRecord(answer) ? answer.responses : undefined;
    // Not an answer item by item: what was stored is unknown, and the next attempts look.
    if (!Array.isArray(responses) || responses.length !== items.length)
      throw new TransientDeliveryError(`${this.spec.name} answered without one response per item`);
    return responses.map((r: unknown) =>
      isRecord(r) && "error" in r ? { error: itemError(this.spec.name, r.error) } : { row: r as R },
    );
  }

  /** Each write as its own request, sent with its own client. */
  private alone(items: Array<Write<B>>): Promise<Array<Outcome<R>>> {
    return Promise.all(items.map((i) => settle(() => this.spec.one(i.client, i.body))));
  }
}
