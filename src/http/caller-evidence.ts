import type { Principal } from "../context.js";
import { ApiError, errorStatus, notFound } from "../errors/api-error.js";
import { pathUuid } from "../errors/path-uuid.js";
import { isUuid } from "../formats/ids.js";
import type { IndexLookup } from "../formats/vindex/lookup-format.js";
import type {
  EvidenceSource,
  PublishedCheckpoint,
  ReceiptProfile,
  SourcedReceipt,
} from "../lookup/evidence/source.js";
import { LookupError, MAX_LIST_PAGES, type PublicRecord } from "../lookup/public-api.js";
import { viewFor } from "../services/access/caller-view.js";
import { requireReadableEventOf, requireReadableRecord } from "../services/access/readable-records.js";
import { consistency, treeConsistency } from "../services/ledger/consistency.js";
import { latestSeal, scittKeys, sealSizes } from "../services/ledger/ledger-info.js";
import { receiptFor } from "../services/ledger/proofs.js";
import { receiptsOfRecords } from "../services/ledger/receipts-in-bulk.js";
import { checkpointNote, logVkey } from "../services/ledger/tlog.js";
import { readAsset } from "../services/records/assets.js";
import { readFreeEvent } from "../services/records/free-events.js";
import { listAssetEvents } from "../services/records/lists.js";
import { entryStatement } from "../services/scitt/scitt.js";
import { type StatementCursor, searchStatements } from "../services/scitt/statement-search.js";
import { lookUpKey } from "../services/vindex/index-lookup.js";
import type { HttpDeps } from "./deps.js";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./paging.js";

const tenantOf = (log: string) => pathUuid(log.replace(/^tenant\//, ""), "log");

/** One page of a list read in-process: its items, and where the next starts (none after the last). */
interface Page<T, C> {
  items: T[];
  next: C | undefined;
}

/**
 * The evidence one caller may read, read in-process by the service's evidence and consent routes:
 * each read calls the service the caller's route would call, under the same check of the caller
 * (its access view, its grant of the record), so a bundle or a report holds exactly what those
 * routes would answer it, and each read the caller's own request would have made is counted
 * against its tenancy's rate limit as that request would be (the routes that take a token).
 * Refusals are LookupErrors with the status the route answers, as over fetch.
 */
export class CallerEvidence implements EvidenceSource {
  readonly base: string;
  /** The records this source gave the caller, by identity: the caller may read each. */
  private readonly given = new Set<string>();

  constructor(
    private readonly d: HttpDeps,
    private readonly caller: Principal,
  ) {
    this.base = d.ctx.baseUrl.replace(/\/$/, "");
  }

  /**
   * One read: after what else the service has to do (a long gathering is many short steps
   * between other requests, never one block of work ahead of them), counted against the
   * caller's rate when its route takes a token (`counted`), its refusal a LookupError.
   */
  private async read<T>(what: string, counted: boolean, read: () => Promise<T>): Promise<T> {
    await new Promise((resolve) => setImmediate(resolve));
    try {
      if (counted) await this.d.limiter?.take(this.caller.tenantId);
      return await read();
    } catch (err) {
      if (err instanceof ApiError)
        throw new LookupError(`${what}: ${err.message}`, errorStatus[err.kind].http);
      throw err;
    }
  }

  /** Every page of a list, each a counted read, and at most as many as over fetch. */
  private async pages<T, C>(what: string, first: C, page: (cursor: C) => Promise<Page<T, C>>): Promise<T[]> {
    const out: T[] = [];
    let cursor: C | undefined = first;
    for (let n = 0; n < MAX_LIST_PAGES && cursor !== undefined; n++) {
      const at: C = cursor;
      const p = await this.read(what, true, () => page(at));
      out.push(...p.items);
      cursor = p.next;
    }
    if (cursor !== undefined)
      throw new LookupError(`${what} has more than ${MAX_LIST_PAGES} pages; narrow the look-up`);
    return out;
  }

  /** Records the caller gets, remembered as given. */
  private gave(records: readonly PublicRecord[]): void {
    for (const r of records) this.given.add(String(r.identity));
  }

  /** The asset events the caller may read of one asset, or of every asset, filtered by `pairs`. */
  private async events(what: string, asset: string | undefined, pairs: Array<[string, string]>) {
    const { ctx } = this.d;
    const events = await this.pages(what, 0, async (cursor: number) => {
      const assetId = asset === undefined ? undefined : pathUuid(asset, "asset");
      const view = await viewFor(ctx, this.caller);
      // No count: it only sets a list's headers, which nobody reads here.
      const request = { pairs, pageSize: DEFAULT_PAGE_SIZE, cursor, firstPage: false, wantCount: false };
      const page = await listAssetEvents(ctx, view, assetId, request);
      return { items: page.items as PublicRecord[], next: page.more ? page.lastSeq : undefined };
    });
    this.gave(events);
    return events;
  }

  async asset(uuid: string): Promise<PublicRecord> {
    const { ctx } = this.d;
    const asset: PublicRecord = await this.read(`the asset assets/${uuid}`, true, async () =>
      readAsset(ctx, await viewFor(ctx, this.caller), pathUuid(uuid, "asset")),
    );
    this.gave([asset]);
    return asset;
  }

  assetEvents(uuid: string): Promise<PublicRecord[]> {
    return this.events(`the events of assets/${uuid}`, uuid, []);
  }

  subjectEvents(subject: string): Promise<PublicRecord[]> {
    return this.events(`the events of ${subject}`, undefined, [["event_attributes.subject", subject]]);
  }

  subjectStatements(subject: string): Promise<PublicRecord[]> {
    const { ctx } = this.d;
    const query = { subject, issuer: undefined, payload_hash: undefined };
    const start: StatementCursor = { assetEvents: 0, freeEvents: 0 };
    return this.pages(`the statements of ${subject}`, start, async (cursor) => {
      const found = await searchStatements(ctx, this.caller, query, cursor, MAX_PAGE_SIZE);
      return { items: found.statements.map((st): PublicRecord => ({ ...st })), next: found.next };
    });
  }

  async freeEvent(identity: string): Promise<PublicRecord> {
    const event: PublicRecord = await this.read(identity, true, async () => {
      const parts = identity.split("/");
      // Any other path is no route of an asset-free event.
      if (parts.length !== 2 || parts[0] !== "events") throw notFound("route");
      return readFreeEvent(this.d.ctx, this.caller, pathUuid(parts[1], "event"));
    });
    this.gave([event]);
    return event;
  }

  statement(identity: string): Promise<Uint8Array> {
    return this.read(`the statement of ${identity}`, true, () => {
      const parts = identity.split("/");
      if (parts.length !== 2 || parts[0] !== "events") throw notFound("entry");
      // As the caller's GET /entries/{id}/statement at the service's root, which reads every log's.
      return entryStatement(this.d.ctx, { caller: this.caller, log: undefined }, `events_${parts[1]}`, false);
    });
  }

  /** The record's id, once the caller is found to be one the receipt routes would answer. */
  private async readable(identity: string): Promise<string> {
    const { ctx } = this.d;
    const parts = identity.split("/");
    if (parts.length === 4 && parts[0] === "assets" && parts[2] === "events") {
      const event = pathUuid(parts[3], "event");
      await requireReadableEventOf(ctx, this.caller, pathUuid(parts[1], "asset"), event);
      return event;
    }
    if (parts.length !== 2 || parts[0] !== "events") throw notFound("route");
    const id = pathUuid(parts[1], "event");
    await requireReadableRecord(ctx, this.caller, id);
    return id;
  }

  receipt(identity: string): Promise<Uint8Array | undefined> {
    return this.read(`the receipt of ${identity}`, true, async () => {
      const id = await this.readable(identity);
      try {
        return await receiptFor(this.d.ctx, id, "mmr", "map");
      } catch (err) {
        // Not committed or not sealed yet (409).
        if (err instanceof ApiError && err.kind === "conflict") return undefined;
        throw err;
      }
    });
  }

  /**
   * The records' receipts, a few reads per hundreds of records (`receiptsOfRecords`) rather than
   * one request per receipt: the same receipts the receipt routes serve, from the same cache.
   * A record this source did not give is first checked as the receipt route checks it, and
   * counted as that request would be. Those it gave are the caller's to read already, and their
   * receipts are not counted one by one (a 1,001-record bundle would take 2,002 of the rate for
   * reads that cost a few queries per 200 records): the request that asked for the bundle was
   * counted, and so was every listing page that named them (one per 50 records), and the export
   * slots (`ExportSlots`) bound how many gatherings a tenancy runs at once. A failure to make
   * them is the service's (503 …), answered as it is.
   */
  async receipts(records: readonly PublicRecord[], profile: ReceiptProfile) {
    const identities = records.map((r) => String(r.identity));
    for (const identity of identities)
      if (!this.given.has(identity))
        await this.read(`the receipt of ${identity}`, true, () => this.readable(identity));
    const ids = identities.map((identity) => identity.slice(identity.lastIndexOf("/") + 1).toLowerCase());
    const made = await receiptsOfRecords(
      this.d.ctx,
      ids.filter((id) => isUuid(id)),
      profile,
    );
    const out = new Map<string, SourcedReceipt>();
    identities.forEach((identity, i) => {
      const r = made.get(ids[i] as string);
      if (r) out.set(identity, r);
    });
    return out;
  }

  // The routes below are public: they take no token, and so count against no rate.

  sealSizes(log: string): Promise<number[]> {
    return this.read(`the seals of ${log}`, false, () => sealSizes(this.d.ctx, tenantOf(log)));
  }

  seal(log: string, size: number): Promise<Uint8Array> {
    return this.read(`seal ${size} of ${log}`, false, () => latestSeal(this.d.ctx, tenantOf(log), size));
  }

  async consistency(log: string, from: number, to: number): Promise<string[][]> {
    const what = `the consistency of ${log} from ${from} to ${to}`;
    return (await this.read(what, false, () => consistency(this.d.ctx, tenantOf(log), from, to))).paths;
  }

  async treeConsistency(log: string, from: number, to: number): Promise<string[]> {
    const what = `the RFC 9162 consistency of ${log} from ${from} to ${to}`;
    return (await this.read(what, false, () => treeConsistency(this.d.ctx, tenantOf(log), from, to))).proof;
  }

  keySet(): Promise<Uint8Array> {
    return this.read("the service's keys", false, () => scittKeys(this.d.ctx));
  }

  checkpoint(log: string): Promise<PublishedCheckpoint> {
    return this.read(`the checkpoint of ${log}`, false, async () => ({
      note: await checkpointNote(this.d.ctx, tenantOf(log)),
      key: await logVkey(this.d.ctx, tenantOf(log)),
    }));
  }

  // A token route again: the lookup answers the caller's tenancy's log.

  indexLookup(key: string): Promise<IndexLookup> {
    return this.read(`the index lookup of ${key}`, true, () => lookUpKey(this.d.ctx, this.caller, key));
  }
}

/**
 * What a route gathering evidence answers when a read was refused: over the caller's rate limit,
 * 429 (`doing` names the gathering); a read the service could not answer, 503; anything else the
 * caller could not read, 404, as a list would answer it (a bundle or a report never says more than
 * the reads it is made of).
 */
export async function answerGathering<T>(doing: string, gather: () => Promise<T>): Promise<T> {
  try {
    return await gather();
  } catch (err) {
    if (err instanceof LookupError && err.status === 429)
      throw new ApiError("rate_limited", `${doing} went over the rate limit: ${err.message}`);
    // A read the service could not answer (a store fault, a deleted node) is not an absent record.
    if (err instanceof LookupError && err.status !== undefined && err.status >= 500)
      throw new ApiError("unavailable", `${doing}: ${err.message}`);
    if (err instanceof LookupError) throw new ApiError("not_found", err.message);
    throw err;
  }
}
