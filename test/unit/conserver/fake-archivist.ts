import { randomUUID } from "node:crypto";

/** A scripted answer that replaces the next real one on a route. */
/** Our write extensions, which honour `Prefer: return=minimal` as the service does. */
const MINIMAL = new Set(["assets.create_with_events", "assets.batch_with_events", "events.create_batch"]);

const identityOnly = (r: unknown) => ({ identity: (r as { identity: string }).identity });
const madeOnly = (r: unknown) => {
  const m = r as { asset: unknown; events: unknown[] };
  return { asset: identityOnly(m.asset), events: m.events.map(identityOnly) };
};

/** What a write extension answers under `return=minimal`: the identities it made; item errors as they are. */
function minimalAnswer(route: string, body: unknown): unknown {
  if (route === "assets.create_with_events") return madeOnly(body);
  const item = route === "assets.batch_with_events" ? madeOnly : identityOnly;
  return {
    responses: (body as { responses: unknown[] }).responses.map((r) =>
      r !== null && typeof r === "object" && "error" in r ? r : item(r),
    ),
  };
}

export interface Fault {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Serve the request first, then answer the fault: an answer lost after the backend acted. */
  afterActing?: boolean;
}

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

type Rec = Record<string, unknown>;

const ROUTES: Array<[string, RegExp, string]> = [
  ["POST", /^\/archivist\/iam\/v1\/appidp\/token$/, "token"],
  ["GET", /^\/archivist\/v2\/assets$/, "assets.list"],
  ["POST", /^\/archivist\/v2\/assets$/, "assets.create"],
  ["POST", /^\/archivist\/v2\/assets:withEvents$/, "assets.create_with_events"],
  ["POST", /^\/archivist\/v2\/assets:batchWithEvents$/, "assets.batch_with_events"],
  ["POST", /^\/archivist\/v2\/assets\/-\/events:batch$/, "events.create_batch"],
  ["GET", /^\/archivist\/v2\/assets\/([^/]+)\/events$/, "events.list"],
  ["POST", /^\/archivist\/v2\/assets\/([^/]+)\/events$/, "events.create"],
  ["POST", /^\/archivist\/v1\/events$/, "free_events.create"],
  ["POST", /^\/archivist\/v1\/events\/search$/, "free_events.search"],
];

function pageSize(q: URLSearchParams): number {
  return Number(q.get("page_size") ?? 100);
}

/** How a backend reads a query key given more than once. */
export type RepeatedKeys = "all" | "any" | "last";

function matches(record: Rec, query: URLSearchParams, prefix: string, repeated: RepeatedKeys): boolean {
  for (const k of new Set(query.keys())) {
    if (!k.startsWith(prefix)) continue;
    const values = query.getAll(k);
    const actual = String(record[k.slice(prefix.length)]);
    if (repeated === "all" && !values.every((v) => v === actual)) return false;
    if (repeated === "any" && !values.includes(actual)) return false;
    if (repeated === "last" && values.at(-1) !== actual) return false;
  }
  return true;
}

/**
 * A minimal in-memory archivist API (token, assets, asset events, asset-free events) with
 * scripted faults, for delivery tests. `fetch` serves it in-process; the integration tests put
 * it behind a real HTTP server.
 */
export class FakeArchivist {
  readonly clients = new Map([["client-1", "secret-1"]]);
  readonly tokens = new Set<string>();
  tokenTtlS = 3600;
  readonly assets: Array<{ identity: string; attributes: Rec; public: boolean }> = [];
  readonly events: Array<{ identity: string; asset_identity: string; event_attributes: Rec; body: Rec }> = [];
  readonly freeEvents: Array<{ identity: string; attributes: Rec; trails: string[]; event_type: string }> =
    [];
  readonly calls: string[] = [];
  /** The calls that asked for `Prefer: return=minimal`; the write extensions then answer identities only. */
  readonly minimalCalls: string[] = [];
  private readonly faults = new Map<string, Fault[]>();
  /** "all" by default: a backend that does not read a repeated key as the wire conventions do. */
  repeatedKeys: RepeatedKeys = "all";
  /** Offers our extension `POST /archivist/v2/assets:withEvents` (DataTrails' API has none: 404). */
  offersWithEvents = false;
  /** Offers our extension `POST /archivist/v2/assets:batchWithEvents` (404 otherwise). */
  offersBatch = false;
  /** Offers our extension `POST /archivist/v2/assets/-/events:batch` (404 otherwise). */
  offersEventBatch = false;
  /** Refuses (403) an `assets:withEvents` creation, alone or in a batch, whose attributes this accepts. */
  refuseCreation: ((attributes: Rec) => boolean) | undefined;
  /** Refuses (403) an event on a known asset, alone or in a batch, whose event attributes this accepts. */
  refuseEvent: ((eventAttributes: Rec) => boolean) | undefined;
  /** Awaited before a route is served (to hold a request while a test kills its worker). */
  hold: ((route: string) => Promise<void>) | undefined;

  /** Makes the next answers of `route` these faults, in order. */
  fault(route: string, ...faults: Fault[]): void {
    this.faults.set(route, [...(this.faults.get(route) ?? []), ...faults]);
  }

  count(route: string): number {
    return this.calls.filter((c) => c === route).length;
  }

  revokeTokens(): void {
    this.tokens.clear();
  }

  /** Serves one request. */
  async handle(method: string, url: URL, headers: Headers, body: string): Promise<Answer> {
    const route = ROUTES.find(([m, re]) => m === method && re.test(url.pathname));
    if (!route) return { status: 404, body: { code: 5, message: "no route" } };
    const name = route[2];
    this.calls.push(name);
    if (this.hold) await this.hold(name);
    const fault = this.faults.get(name)?.shift();
    if (fault?.afterActing) await this.handleUnfaulted(name, route[1], url, headers, body);
    if (fault)
      return {
        status: fault.status,
        body: fault.body ?? { code: 2, message: "fault" },
        ...(fault.headers ? { headers: fault.headers } : {}),
      };
    const answer = await this.handleUnfaulted(name, route[1], url, headers, body);
    if (!/(^|,)\s*return\s*=\s*"?minimal/i.test(headers.get("prefer") ?? "")) return answer;
    this.minimalCalls.push(name);
    return MINIMAL.has(name) && answer.status === 200
      ? { ...answer, body: minimalAnswer(name, answer.body) }
      : answer;
  }

  private async handleUnfaulted(name: string, path: RegExp, url: URL, headers: Headers, body: string) {
    if (name === "token") return this.token(body);
    const auth = headers.get("authorization") ?? "";
    if (!this.tokens.has(auth.replace(/^Bearer /, "")))
      return { status: 401, body: { code: 16, message: "bad token" } };
    const json = body ? (JSON.parse(body) as Rec) : {};
    const id = url.pathname.match(path)?.[1];
    return this.serve(name, url.searchParams, json, id);
  }

  private token(body: string): Answer {
    const form = new URLSearchParams(body);
    if (form.get("grant_type") !== "client_credentials")
      return { status: 400, body: { message: "grant_type" } };
    const secret = this.clients.get(form.get("client_id") ?? "");
    if (!secret || secret !== form.get("client_secret"))
      return { status: 401, body: { message: "bad client" } };
    const token = randomUUID();
    this.tokens.add(token);
    return { status: 200, body: { access_token: token, token_type: "Bearer", expires_in: this.tokenTtlS } };
  }

  private serve(name: string, q: URLSearchParams, json: Rec, id: string | undefined): Answer {
    switch (name) {
      case "assets.list":
        return {
          status: 200,
          body: {
            assets: this.assets
              .filter((a) => matches(a.attributes, q, "attributes.", this.repeatedKeys))
              .slice(0, pageSize(q)),
            next_page_token: "",
          },
        };
      case "assets.create": {
        const asset = {
          identity: `assets/${randomUUID()}`,
          attributes: json.attributes as Rec,
          public: json.public === true,
        };
        this.assets.push(asset);
        return { status: 200, body: asset };
      }
      case "assets.create_with_events": {
        if (!this.offersWithEvents) return { status: 404, body: { code: 5, message: "no route" } };
        if (this.refuseCreation?.((json.attributes ?? {}) as Rec))
          return { status: 403, body: { code: 7, message: "permission denied" } };
        const made = this.serve("assets.create", q, json, undefined).body as { identity: string };
        const events = (json.events as Rec[]).map(
          (e) => this.serve("events.create", q, e, made.identity.slice("assets/".length)).body,
        );
        return { status: 200, body: { asset: made, events } };
      }
      case "assets.batch_with_events":
        if (!this.offersBatch) return { status: 404, body: { code: 5, message: "no route" } };
        // Each item as its own assets:withEvents, answered in order; a refused one fails alone.
        return this.batch(json, (item) => this.serve("assets.create_with_events", q, item, undefined));
      case "events.create_batch":
        if (!this.offersEventBatch) return { status: 404, body: { code: 5, message: "no route" } };
        // Each item as its own POST …/events on the asset it names.
        return this.batch(json, (item) => {
          const asset = String(item.asset_identity);
          if (!asset.startsWith("assets/"))
            return { status: 400, body: { code: 3, message: "asset_identity" } };
          return this.serve("events.create", q, item.event as Rec, asset.slice("assets/".length));
        });
      case "events.list": {
        const events = this.events.filter(
          (e) =>
            (id === "-" || e.asset_identity === `assets/${id}`) &&
            matches(e.event_attributes, q, "event_attributes.", this.repeatedKeys),
        );
        return {
          status: 200,
          body: {
            events: events.slice(0, pageSize(q)).map((e) => ({
              identity: e.identity,
              asset_identity: e.asset_identity,
              event_attributes: e.event_attributes,
            })),
            next_page_token: "",
          },
        };
      }
      case "events.create": {
        if (json.operation !== "Record" || typeof json.event_attributes !== "object")
          return { status: 400, body: { code: 3, message: "operation must be Record" } };
        if (!this.assets.some((a) => a.identity === `assets/${id}`))
          return { status: 404, body: { message: "asset" } };
        if (this.refuseEvent?.(json.event_attributes as Rec))
          return { status: 403, body: { code: 7, message: "permission denied" } };
        const e = {
          identity: `assets/${id}/events/${randomUUID()}`,
          asset_identity: `assets/${id}`,
          event_attributes: json.event_attributes as Rec,
          body: json,
        };
        this.events.push(e);
        return { status: 200, body: e };
      }
      case "free_events.create": {
        const e = {
          identity: `events/${randomUUID()}`,
          attributes: json.attributes as Rec,
          trails: json.trails as string[],
          event_type: String(json.event_type),
        };
        this.freeEvents.push(e);
        return { status: 200, body: e };
      }
      default:
        return this.search(json);
    }
  }

  /** A batch of ours: each item served as its own request, answered in order; a refused one fails alone. */
  private batch(json: Rec, serveItem: (item: Rec) => Answer): Answer {
    const responses = (json.requests as Rec[]).map((item) => {
      const a = serveItem(item);
      if (a.status === 200) return a.body;
      const b = a.body as Rec;
      return { error: { status: a.status, code: b.code ?? 2, message: b.message ?? "", details: [] } };
    });
    return { status: 200, body: { responses } };
  }

  private search(json: Rec): Answer {
    const filter = String(json.filter ?? "");
    const trail = filter.match(/t eq '([^']*)'/)?.[1];
    const type = filter.match(/event_type eq '([^']*)'/)?.[1];
    const all = this.freeEvents.filter(
      (e) => (!trail || e.trails.includes(trail)) && (!type || e.event_type === type),
    );
    const skip = Number(json.skip ?? 0);
    return {
      status: 200,
      headers: { "x-total-count": String(all.length) },
      body: { events: all.slice(skip, skip + Number(json.top ?? 50)) },
    };
  }

  /** In-process fetch serving this fake (any host). */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    init?.signal?.throwIfAborted();
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const body = init?.body === undefined || init.body === null ? "" : String(init.body);
    const a = await this.handle(init?.method ?? "GET", url, new Headers(init?.headers), body);
    return new Response(JSON.stringify(a.body), {
      status: a.status,
      headers: { "content-type": "application/json", ...a.headers },
    });
  };
}
