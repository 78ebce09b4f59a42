import { pathUuid } from "../../core/api/ids.js";
import { publicView, readAsset, readAssetEvent } from "../../services/records/assets.js";
import { listAssetEvents, listAssets } from "../../services/records/lists.js";
import type { HttpDeps } from "../deps.js";
import { runList } from "../listing.js";
import type { RouteTable } from "../route.js";
import { assetOut, eventOut, listQuery } from "../schemas/assets.js";

const group = "publicassetsv2";
// Public listings have no tenancy; their page tokens are bound to this pseudo-tenant.
const PUBLIC = "public";

/** The read-only public routes, without a token, under `/archivist/v2/publicassets` and the un-versioned alias. */
export function publicAssetRoutes(t: RouteTable, d: HttpDeps): void {
  for (const base of ["/archivist/v2/publicassets", "/archivist/publicassets"]) {
    t.add({
      method: "get",
      path: `${base}/-/events`,
      group,
      auth: "public",
      summary: "List events of public assets",
      query: listQuery,
      handler: ({ req, res, pairs }) =>
        runList(
          d.ctx,
          req,
          res,
          { route: "public-events:-", tenant: PUBLIC, collection: "events", pairs },
          (r) => listAssetEvents(d.ctx, publicView, undefined, r, "publicassets"),
        ),
    });
    t.add({
      method: "get",
      path: base,
      group,
      auth: "public",
      summary: "List public assets",
      query: listQuery,
      handler: ({ req, res, pairs }) =>
        runList(
          d.ctx,
          req,
          res,
          { route: "public-assets", tenant: PUBLIC, collection: "assets", pairs },
          (r) => listAssets(d.ctx, publicView, r, "publicassets"),
        ),
    });
    t.add({
      method: "get",
      path: `${base}/{uuid}`,
      group,
      auth: "public",
      summary: "Get a public asset",
      response: assetOut,
      handler: ({ params }) =>
        readAsset(d.ctx, publicView, pathUuid(params.uuid, "asset"), undefined, "publicassets"),
    });
    t.add({
      method: "get",
      path: `${base}/{uuid}/events`,
      group,
      auth: "public",
      summary: "List events of a public asset",
      query: listQuery,
      handler: ({ params, req, res, pairs }) => {
        const id = pathUuid(params.uuid, "asset");
        return runList(
          d.ctx,
          req,
          res,
          { route: `public-events:${id}`, tenant: PUBLIC, collection: "events", pairs },
          (r) => listAssetEvents(d.ctx, publicView, id, r, "publicassets"),
        );
      },
    });
    t.add({
      method: "get",
      path: `${base}/{uuid}/events/{event}`,
      group,
      auth: "public",
      summary: "Get an event of a public asset",
      response: eventOut,
      handler: ({ params }) =>
        readAssetEvent(
          d.ctx,
          publicView,
          pathUuid(params.uuid, "asset"),
          pathUuid(params.event, "event"),
          "publicassets",
        ),
    });
  }
}
