import type {
  Asset,
  AssetBatchWithEvents,
  AssetBatchWithEventsAnswer,
  AssetBatchWithEventsMade,
  AssetCreate,
  AssetCreateWithEvents,
  AssetEvent,
  AssetEventBatch,
  AssetEventBatchAnswer,
  AssetEventBatchMade,
  AssetWithEvents,
  AssetWithEventsMade,
  Blob,
  Consent,
  ConsentVerification,
  EventCreate,
  EventSearch,
  FreeEvent,
  FreeEventCreate,
  ListQuery,
  Page,
  ReceiptProfile,
} from "./api-types.js";
import { type FilePart, multipartFile } from "./multipart.js";
import { type CallOptions, type Reply, Transport, type TransportOptions } from "./transport.js";

/** List options: whether to ask for the total (`x-total-count`). */
export interface ListOptions {
  count?: boolean;
}

/** Where a SCITT statement is registered: the service's public log, or one tenancy's. */
export interface ScittOptions {
  /** The tenancy's uuid; its log is at `/tenants/{tenant}`. */
  tenant?: string;
  profile?: ReceiptProfile;
}

/** A registration: the entry, and its receipt when the service sealed it within its wait. */
export interface Registration {
  entryId: string;
  /** Absent while the entry is being sealed (202): ask `entryReceipt` later. */
  receipt?: Uint8Array;
}

/** Path segments of an identity (`assets/<uuid>`, `assets/<uuid>/events/<uuid>`, `events/<uuid>`), each escaped. */
function pathOf(identity: string): string {
  return identity.split("/").map(encodeURIComponent).join("/");
}

/** An asset named by its identity or its bare uuid (`-`: every asset, for event lists). */
function assetPath(asset: string): string {
  return `/archivist/v2/${pathOf(asset.startsWith("assets/") ? asset : `assets/${asset}`)}`;
}

const CREATE = { retryUnknown: false } as const;

function page<T>(reply: Reply<unknown>, collection: string): Page<T> {
  const body = reply.body as Record<string, unknown> | null;
  const items = body && Array.isArray(body[collection]) ? (body[collection] as T[]) : [];
  const next = body?.next_page_token;
  const total = reply.headers.get("x-total-count");
  return {
    items,
    nextPageToken: typeof next === "string" ? next : "",
    ...(total === null || total === "" ? {} : { total: Number(total) }),
    partial: reply.status === 206,
  };
}

/** Asks a write extension to answer only the identities it made, not the records. */
export interface Minimal {
  minimal: true;
}

/** `Prefer: return=minimal` (RFC 7240) when asked; a service that does not honour it answers the records. */
function preferring(o: Minimal | undefined): { headers?: Record<string, string> } {
  return o?.minimal ? { headers: { prefer: "return=minimal" } } : {};
}

/**
 * A typed client of the Archivist API for what an application (the conserver's delivery) and
 * an auditor do: assets and their events, asset-free events, receipts, SCITT registration and
 * blobs. Answers are typed, not validated: a caller that does not trust the service checks
 * what it reads, and verifies receipts with `vcon-archivist/verify`.
 *
 * Writes are sent once when their outcome is unknown (a 5xx, a lost answer): sending one twice
 * could record it twice, so the caller looks before it tries again. Reads are retried.
 */
export class ApiClient {
  protected readonly transport: Transport;

  constructor(o: TransportOptions) {
    this.transport = new Transport(o);
  }

  private async json<T>(method: "GET" | "POST", path: string, o: CallOptions): Promise<T> {
    return (await this.transport.json<T>(method, path, o)).body;
  }

  /** A JSON write, answering the records or, with `minimal` (this service's extensions), their identities. */
  private create<T>(path: string, route: string, body: unknown, o?: Minimal): Promise<T> {
    return this.json("POST", path, { route, body: { json: body }, ...CREATE, ...preferring(o) });
  }

  private async list<T>(path: string, collection: string, route: string, query: ListQuery, l: ListOptions) {
    const reply = await this.transport.json("GET", path, {
      route,
      query,
      ...(l.count ? { headers: { "x-request-total-count": "true" } } : {}),
    });
    return page<T>(reply, collection);
  }

  createAsset(body: AssetCreate): Promise<Asset> {
    return this.create("/archivist/v2/assets", "assets.create", body);
  }

  /** An asset with its first events, committed together (`assets:withEvents`, an extension of this service). */
  createAssetWithEvents(body: AssetCreateWithEvents): Promise<AssetWithEvents>;
  /** With `minimal`, the service answers only the identities it made (`Prefer: return=minimal`). */
  createAssetWithEvents(body: AssetCreateWithEvents, o: Minimal): Promise<AssetWithEventsMade>;
  createAssetWithEvents(
    body: AssetCreateWithEvents,
    o?: Minimal,
  ): Promise<AssetWithEvents | AssetWithEventsMade> {
    return this.create("/archivist/v2/assets:withEvents", "assets.create_with_events", body, o);
  }

  /**
   * Many assets, each with its first events (`assets:batchWithEvents`, an extension of this
   * service): one answer per item, in order, each what its own `createAssetWithEvents` would
   * have answered. A backend without it answers 404 (or 405/501) for the path.
   */
  createAssetsWithEvents(body: AssetBatchWithEvents): Promise<AssetBatchWithEventsAnswer>;
  createAssetsWithEvents(body: AssetBatchWithEvents, o: Minimal): Promise<AssetBatchWithEventsMade>;
  createAssetsWithEvents(
    body: AssetBatchWithEvents,
    o?: Minimal,
  ): Promise<AssetBatchWithEventsAnswer | AssetBatchWithEventsMade> {
    return this.create("/archivist/v2/assets:batchWithEvents", "assets.batch_with_events", body, o);
  }

  getAsset(asset: string): Promise<Asset> {
    return this.json("GET", assetPath(asset), { route: "assets.get" });
  }

  listAssets(query: ListQuery = {}, l: ListOptions = {}): Promise<Page<Asset>> {
    return this.list("/archivist/v2/assets", "assets", "assets.list", query, l);
  }

  createAssetEvent(asset: string, body: EventCreate): Promise<AssetEvent> {
    return this.create(`${assetPath(asset)}/events`, "events.create", body);
  }

  /**
   * Many events, each on the asset it names by identity (`assets/-/events:batch`, an extension of
   * this service): one answer per item, in order, each what its own `createAssetEvent` would have
   * answered. A backend without it answers 404 (or 405/501) for the path.
   */
  createAssetEvents(body: AssetEventBatch): Promise<AssetEventBatchAnswer>;
  createAssetEvents(body: AssetEventBatch, o: Minimal): Promise<AssetEventBatchMade>;
  createAssetEvents(
    body: AssetEventBatch,
    o?: Minimal,
  ): Promise<AssetEventBatchAnswer | AssetEventBatchMade> {
    return this.create("/archivist/v2/assets/-/events:batch", "events.create_batch", body, o);
  }

  /** `identity`: `assets/<uuid>/events/<uuid>`. */
  getAssetEvent(identity: string): Promise<AssetEvent> {
    return this.json("GET", `/archivist/v2/${pathOf(identity)}`, { route: "events.get" });
  }

  /** The events of one asset, or of every asset the caller may read (`asset` = `-`). */
  listAssetEvents(asset: string, query: ListQuery = {}, l: ListOptions = {}): Promise<Page<AssetEvent>> {
    return this.list(`${assetPath(asset)}/events`, "events", "events.list", query, l);
  }

  createEvent(body: FreeEventCreate): Promise<FreeEvent> {
    return this.create("/archivist/v1/events", "free_events.create", body);
  }

  /** `id`: the uuid, or `events/<uuid>`. */
  getEvent(id: string): Promise<FreeEvent> {
    return this.json("GET", `/archivist/v1/${pathOf(id.startsWith("events/") ? id : `events/${id}`)}`, {
      route: "free_events.get",
    });
  }

  /** Asset-free events by OData filter; `total` is always given (`skip` pages until it). */
  async searchEvents(search: EventSearch = {}): Promise<{ events: FreeEvent[]; total?: number }> {
    const { items, total } = page<FreeEvent>(
      await this.transport.json("POST", "/archivist/v1/events/search", {
        route: "free_events.search",
        body: { json: search },
      }),
      "events",
    );
    return { events: items, ...(total === undefined ? {} : { total }) };
  }

  /**
   * The COSE receipt of a record (`assets/<uuid>/events/<uuid>` or `events/<uuid>`), or
   * undefined while it is not yet committed and sealed (409).
   */
  async receipt(identity: string, profile: ReceiptProfile = "mmr"): Promise<Uint8Array | undefined> {
    const reply = await this.transport.bytes("GET", `/archivist/v1/receipts/${pathOf(identity)}`, {
      route: "receipts.get",
      query: { profile },
      answers: [409],
    });
    return reply.status === 409 ? undefined : reply.body;
  }

  /**
   * A vCon's consent per purpose, derived from the records the caller may read, with the consent
   * records and their receipts (`GET /archivist/v1/consent/vcons/{uuid}`, an extension of this
   * service); undefined when the caller may read no record of it (404).
   */
  async consent(vconUuid: string, purpose?: string): Promise<Consent | undefined> {
    const reply = await this.transport.json<Consent>(
      "GET",
      `/archivist/v1/consent/vcons/${encodeURIComponent(vconUuid)}`,
      { route: "consent.get", ...(purpose === undefined ? {} : { query: { purpose } }), answers: [404] },
    );
    return reply.status === 404 ? undefined : reply.body;
  }

  /**
   * Verifies a vCon's consent for `purpose` before `operation` and, when granted, has the service
   * record the verification (`POST /archivist/v1/consent/vcons/{uuid}/verifications`); undefined
   * when the caller may read no record of the vCon (404). Not retried when the answer is unknown:
   * a second verification would be recorded.
   */
  async verifyConsent(
    vconUuid: string,
    purpose: string,
    operation: string,
  ): Promise<ConsentVerification | undefined> {
    const reply = await this.transport.json<ConsentVerification>(
      "POST",
      `/archivist/v1/consent/vcons/${encodeURIComponent(vconUuid)}/verifications`,
      { route: "consent.verify", body: { json: { purpose, operation } }, ...CREATE, answers: [404] },
    );
    return reply.status === 404 ? undefined : reply.body;
  }

  /** The service's public keys (`/.well-known/scitt-keys`, a COSE_KeySet), for `keysFromKeySet`. */
  async keySet(): Promise<Uint8Array> {
    return (await this.transport.bytes("GET", "/.well-known/scitt-keys", { route: "keys" })).body;
  }

  /** SCRAPI: registers a signed statement (COSE_Sign1). */
  async registerStatement(statement: Uint8Array, s: ScittOptions = {}): Promise<Registration> {
    const reply = await this.transport.bytes("POST", `${scrapiBase(s)}/entries`, {
      route: "scitt.register",
      body: { bytes: statement, contentType: "application/cose" },
      ...(s.profile ? { query: { profile: s.profile } } : {}),
      answers: [303],
      ...CREATE,
    });
    const location = reply.headers.get("location") ?? "";
    const entryId = decodeURIComponent(location.slice(location.lastIndexOf("/") + 1));
    return reply.status === 201 ? { entryId, receipt: reply.body } : { entryId };
  }

  /** SCRAPI: an entry's receipt, or undefined while it is being sealed (202, or 302 by option). */
  async entryReceipt(entryId: string, s: ScittOptions = {}): Promise<Uint8Array | undefined> {
    const reply = await this.transport.bytes(
      "GET",
      `${scrapiBase(s)}/entries/${encodeURIComponent(entryId)}`,
      {
        route: "scitt.receipt",
        ...(s.profile ? { query: { profile: s.profile } } : {}),
        answers: [302],
      },
    );
    return reply.status === 200 ? reply.body : undefined;
  }

  /** SCRAPI: the registered statement; `transparent`: with its receipt attached. */
  async entryStatement(
    entryId: string,
    s: ScittOptions & { transparent?: boolean } = {},
  ): Promise<Uint8Array> {
    const query: Record<string, string> = {};
    if (s.transparent) query.transparent = "true";
    if (s.profile) query.profile = s.profile;
    const path = `${scrapiBase(s)}/entries/${encodeURIComponent(entryId)}/statement`;
    return (await this.transport.bytes("GET", path, { route: "scitt.statement", query })).body;
  }

  /** Uploads a blob (multipart, part `file`); the service scans it before records may cite it. */
  uploadBlob(file: FilePart): Promise<Blob> {
    return this.json("POST", "/archivist/v1/blobs", {
      route: "blobs.upload",
      body: multipartFile("file", file),
      ...CREATE,
    });
  }
}

function scrapiBase(s: ScittOptions): string {
  return s.tenant ? `/tenants/${encodeURIComponent(s.tenant)}` : "";
}
