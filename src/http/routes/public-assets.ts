import { pathUuid } from "../../errors/path-uuid.js";
import { publicView, readAsset, readAssetEvent } from "../../services/records/assets.js";
import { listAssetEvents, listAssets } from "../../services/records/lists.js";
import type { HttpDeps } from "../deps.js";
import { listRoute } from "../listing.js";
import type { RouteTable } from "../route.js";
import { assetOut, eventOut } from "../schemas/assets.js";

const group = "publicassetsv2";

/** The read-only public routes, without a token, under `/archivist/v2/publicassets` and the un-versioned alias. */
export function publicAssetRoutes(t: RouteTable, d: HttpDeps): void {
  for (const base of ["/archivist/v2/publicassets", "/archivist/publicassets"]) {
    t.add(
      listRoute(d.ctx, {
        path: `${base}/-/events`,
        group,
        auth: "public",
        summary: "List events of public assets",
        collection: "events",
        family: "public-events:-",
        records: (_, r) => listAssetEvents(d.ctx, publicView, undefined, r, "publicassets"),
      }),
    );
    t.add(
      listRoute(d.ctx, {
        path: base,
        group,
        auth: "public",
        summary: "List public assets",
        collection: "assets",
        family: "public-assets",
        records: (_, r) => listAssets(d.ctx, publicView, r, "publicassets"),
      }),
    );
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
    t.add(
      listRoute(d.ctx, {
        path: `${base}/{uuid}/events`,
        group,
        auth: "public",
        summary: "List events of a public asset",
        collection: "events",
        family: ({ params }) => `public-events:${pathUuid(params.uuid, "asset")}`,
        records: ({ params }, r) =>
          listAssetEvents(d.ctx, publicView, pathUuid(params.uuid, "asset"), r, "publicassets"),
      }),
    );
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
