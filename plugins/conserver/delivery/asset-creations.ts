import type { AssetCreateWithEvents, AssetWithEvents } from "vcon-archivist/client";
import { Coalescer, type Outcome } from "../../../src/batching/coalescer.js";
import { isRecord } from "../vcon.js";
import type { ArchivistClient } from "./client.js";
import { PermanentDeliveryError, TransientDeliveryError } from "./errors.js";

/** What a backend answers for a path it does not have. */
export const NOT_OFFERED = new Set([404, 405, 501]);

/** The service's own cap on a batch (`MAX_BATCH_ASSETS`). */
const MAX_GROUP = 100;
const IN_FLIGHT = 2;

interface Creation {
  client: ArchivistClient;
  body: AssetCreateWithEvents;
}

/** One item's failure as the delivery's errors: a 429 or 5xx may pass, any other refusal will not. */
function itemError(e: unknown): Error {
  const err = isRecord(e) ? e : {};
  const status = typeof err.status === "number" ? err.status : 500;
  const message = `assets:batchWithEvents item: ${typeof err.message === "string" ? err.message : "failed"} (${status})`;
  return status === 429 || status >= 500
    ? new TransientDeliveryError(message, status)
    : new PermanentDeliveryError(message, status);
}

/**
 * New vCons' assets created with their first events: alone (`assets:withEvents`), or, when
 * concurrent deliveries create several at once, in one `assets:batchWithEvents` request (an
 * extension of this service: its items are committed and answered as their own requests would
 * be, so a delivery sees the same answer either way). What a batch saves is the request per new
 * vCon, its parsing, authentication and reply, on both sides. A backend that answers the batch
 * path as one it does not have gets single requests from then on, which are what it had before.
 *
 * As a single creation, a batch is sent once: after a lost answer, its deliveries' next attempts
 * look their assets up first.
 */
export class AssetCreations {
  private readonly groups = new Map<string, Coalescer<Creation, AssetWithEvents>>();
  /** Backends (by credentials) that answered the batch path as one they do not have. */
  private readonly single = new Set<string>();

  /** What `assets:withEvents` answers for `body`, sent alone or in a batch with others. */
  create(client: ArchivistClient, body: AssetCreateWithEvents): Promise<AssetWithEvents> {
    if (this.single.has(client.credentials)) return client.createAssetWithEvents(body);
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

  private async runGroup(items: Creation[]): Promise<Array<Outcome<AssetWithEvents>>> {
    const [first] = items;
    if (!first) return [];
    if (items.length === 1 || this.single.has(first.client.credentials)) return this.alone(items);
    let answer: unknown;
    try {
      // Sent with one member's client: grouped by credentials, any of them may send all.
      answer = await first.client.createAssetsWithEvents({ requests: items.map((i) => i.body) });
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
      throw new TransientDeliveryError("assets:batchWithEvents answered without one response per item");
    return responses.map((r: unknown) =>
      isRecord(r) && "error" in r ? { error: itemError(r.error) } : { row: r as AssetWithEvents },
    );
  }

  /** Each creation as its own request, sent with its own client. */
  private alone(items: Creation[]): Promise<Array<Outcome<AssetWithEvents>>> {
    return Promise.all(
      items.map((i) =>
        i.client.createAssetWithEvents(i.body).then(
          (row) => ({ row }),
          (error: unknown) => ({ error }),
        ),
      ),
    );
  }
}
