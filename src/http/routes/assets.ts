import type { z } from "zod";
import type { Outcome } from "../../batching/coalescer.js";
import type { Principal } from "../../context.js";
import { badRequest } from "../../errors/api-error.js";
import { pathUuid } from "../../errors/path-uuid.js";
import type { AccessView } from "../../services/access/access-view.js";
import { adminWriteView, viewFor, writeViewFor } from "../../services/access/caller-view.js";
import { createAssetEvent, createAssetEvents } from "../../services/records/asset-events.js";
import {
  createAsset,
  createAssetsWithEvents,
  createAssetWithEvents,
  readAsset,
  readAssetEvent,
} from "../../services/records/assets.js";
import { requestTime } from "../../services/records/list-query.js";
import { listAssetEvents, listAssets } from "../../services/records/lists.js";
import { answerItems } from "../batch-items.js";
import type { HttpDeps } from "../deps.js";
import { listRoute } from "../listing.js";
import { appliedMinimal, prefersMinimal } from "../prefer.js";
import type { RouteSpec, RouteTable } from "../route.js";
import {
  assetBatchWithEvents,
  assetBatchWithEventsAnswer,
  assetCreate,
  assetCreateWithEvents,
  assetEventBatch,
  assetEventBatchAnswer,
  assetOut,
  assetQuery,
  assetWithEventsAnswer,
  eventCreate,
  eventOut,
} from "../schemas/assets.js";

const BASE = "/archivist/v2/assets";
const group = "assetsv2";

const atTime = (raw: string | undefined): Date | undefined => (raw ? requestTime(raw, "at_time") : undefined);

/** A made record under `Prefer: return=minimal`: what names it. */
const identityOf = (r: { identity: string }) => ({ identity: r.identity });
const madeIdentities = (r: { asset: { identity: string }; events: Array<{ identity: string }> }) => ({
  asset: identityOf(r.asset),
  events: r.events.map(identityOf),
});

/** A batch extension: POST `${BASE}${verb}` of `{requests: [...]}`, each item written by `write`. */
interface BatchWrite<I, R, M> {
  verb: string;
  summary: string;
  body: z.ZodType<{ requests: I[] }>;
  response: z.ZodType;
  write: (ctx: HttpDeps["ctx"], p: Principal, view: AccessView, items: I[]) => Promise<Array<Outcome<R>>>;
  /** An item's answer under `Prefer: return=minimal`. */
  shape: (row: R) => M;
}

/**
 * A batch extension's route, answered by `answerItems`, each item written under the caller's
 * write view. Our write extensions answer only the identities they made when the caller prefers
 * `return=minimal` (RFC 7240): a producer that records and moves on (the conserver's delivery)
 * reads nothing else, and the records cost the service their JSON and the caller its parse.
 */
function batchRoute<I, R, M>(
  d: HttpDeps,
  batch: BatchWrite<I, R, M>,
): RouteSpec<z.ZodType<{ requests: I[] }>, z.ZodType, "token"> {
  return {
    method: "post",
    path: `${BASE}${batch.verb}`,
    group,
    auth: "token",
    summary: batch.summary,
    body: batch.body,
    response: batch.response,
    handler: async ({ principal: p, body, req, res }) => {
      const minimal = prefersMinimal(req);
      const answer = await answerItems(
        d,
        p,
        `assets${batch.verb}`,
        body.requests,
        async (items): Promise<Array<Outcome<R | M>>> => {
          const outcomes = await batch.write(d.ctx, p, await writeViewFor(d.ctx, p), items);
          return minimal ? outcomes.map((o) => ("row" in o ? { row: batch.shape(o.row) } : o)) : outcomes;
        },
      );
      // Said only of an answer that honours it: a refused request is answered as any error is.
      if (minimal) appliedMinimal(res);
      return answer;
    },
  };
}

/** The lists of assets and of every readable asset's events. */
function assetListRoutes(t: RouteTable, d: HttpDeps): void {
  t.add(
    listRoute(d.ctx, {
      path: `${BASE}/-/events`,
      group,
      summary: "List events of every readable asset",
      collection: "events",
      family: "events:-",
      records: async ({ principal }, r) =>
        listAssetEvents(d.ctx, await viewFor(d.ctx, principal), undefined, r),
    }),
  );
  t.add(
    listRoute(d.ctx, {
      path: BASE,
      group,
      summary: "List assets",
      collection: "assets",
      records: async ({ principal }, r) => listAssets(d.ctx, await viewFor(d.ctx, principal), r),
    }),
  );
}

/** Making assets: one, one with its first events, many with theirs, and many events at once. */
function assetCreateRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "post",
    path: BASE,
    group,
    auth: "token",
    summary: "Create an asset",
    body: assetCreate,
    response: assetOut,
    handler: async ({ principal: p, body }) => createAsset(d.ctx, p, await writeViewFor(d.ctx, p), body),
  });
  t.add({
    method: "post",
    path: `${BASE}:withEvents`,
    group,
    auth: "token",
    summary:
      "Create an asset with its first Record events in one transaction; `Prefer: return=minimal` answers only the identities made (an extension: not in the DataTrails API)",
    body: assetCreateWithEvents,
    response: assetWithEventsAnswer,
    handler: async ({ principal: p, body, req, res }) => {
      const made = await createAssetWithEvents(d.ctx, p, await writeViewFor(d.ctx, p), body);
      if (!prefersMinimal(req)) return made;
      appliedMinimal(res);
      return madeIdentities(made);
    },
  });
  t.add(
    batchRoute(d, {
      verb: ":batchWithEvents",
      summary:
        "Create many assets, each with its first Record events, in one request; each item is committed and answered as its own assets:withEvents, `Prefer: return=minimal` included (an extension: not in the DataTrails API)",
      body: assetBatchWithEvents,
      response: assetBatchWithEventsAnswer,
      write: createAssetsWithEvents,
      shape: madeIdentities,
    }),
  );
  t.add(
    batchRoute(d, {
      verb: "/-/events:batch",
      summary:
        "Record many events, each on the asset it names, in one request; each item is committed and answered as its own POST …/assets/{uuid}/events, or only by its identity under `Prefer: return=minimal` (an extension: not in the DataTrails API)",
      body: assetEventBatch,
      response: assetEventBatchAnswer,
      write: createAssetEvents,
      shape: identityOf,
    }),
  );
}

/** One asset: read (at a time, if asked) and its public URL. */
function oneAssetRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Get an asset (optionally at_time)",
    query: assetQuery,
    response: assetOut,
    handler: async ({ principal: p, params, query }) =>
      readAsset(d.ctx, await viewFor(d.ctx, p), pathUuid(params.uuid, "asset"), atTime(query.at_time)),
  });
  t.add({
    method: "get",
    path: `${BASE}/{uuid}:publicurl`,
    group,
    auth: "token",
    summary: "Public URL of a public asset",
    handler: async ({ principal: p, params }) => {
      const asset = await readAsset(d.ctx, await viewFor(d.ctx, p), pathUuid(params.uuid, "asset"));
      if (!asset.public) throw badRequest("the asset is not public");
      return { publicurl: `${d.ctx.baseUrl}/archivist/v2/public${asset.identity}` };
    },
  });
}

/** One asset's events: listed, recorded, read, and a public one's URL. */
function assetEventRoutes(t: RouteTable, d: HttpDeps): void {
  t.add(
    listRoute(d.ctx, {
      path: `${BASE}/{uuid}/events`,
      group,
      summary: "List events of an asset",
      collection: "events",
      family: ({ params }) => `events:${pathUuid(params.uuid, "asset")}`,
      records: async ({ principal, params }, r) =>
        listAssetEvents(d.ctx, await viewFor(d.ctx, principal), pathUuid(params.uuid, "asset"), r),
    }),
  );
  t.add({
    method: "post",
    path: `${BASE}/{uuid}/events`,
    group,
    auth: "token",
    summary: "Record an event on an asset",
    body: eventCreate,
    response: eventOut,
    handler: ({ principal: p, params, body }) => {
      const assetId = pathUuid(params.uuid, "asset");
      // An administrator's view is at hand: no await before the event's own work (every pipeline event).
      const admin = adminWriteView(p);
      if (admin) return createAssetEvent(d.ctx, p, admin, assetId, body);
      return writeViewFor(d.ctx, p).then((view) => createAssetEvent(d.ctx, p, view, assetId, body));
    },
  });
  t.add({
    method: "get",
    path: `${BASE}/{uuid}/events/{event}`,
    group,
    auth: "token",
    summary: "Get an asset event",
    response: eventOut,
    handler: async ({ principal: p, params }) =>
      readAssetEvent(
        d.ctx,
        await viewFor(d.ctx, p),
        pathUuid(params.uuid, "asset"),
        pathUuid(params.event, "event"),
      ),
  });
  t.add({
    method: "get",
    path: `${BASE}/{uuid}/events/{event}:publicurl`,
    group,
    auth: "token",
    summary: "Public URL of a public asset's event",
    handler: async ({ principal: p, params }) => {
      const view = await viewFor(d.ctx, p);
      const asset = await readAsset(d.ctx, view, pathUuid(params.uuid, "asset"));
      const event = await readAssetEvent(
        d.ctx,
        view,
        pathUuid(params.uuid, "asset"),
        pathUuid(params.event, "event"),
      );
      if (!asset.public) throw badRequest("the asset is not public");
      return { publicurl: `${d.ctx.baseUrl}/archivist/v2/public${event.identity}` };
    },
  });
}

/**
 * Assets and asset events (private routes), in the API document's order (docs/api.md lists
 * routes as they are added).
 */
export function assetRoutes(t: RouteTable, d: HttpDeps): void {
  assetListRoutes(t, d);
  assetCreateRoutes(t, d);
  oneAssetRoutes(t, d);
  assetEventRoutes(t, d);
}
