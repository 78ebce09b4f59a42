import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { pathUuid } from "../../errors/path-uuid.js";
import { createFreeEvent, readFreeEvent, searchEvents } from "../../services/records/free-events.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import { erasableAttributes } from "../schemas/common.js";
import { freeEventOut, freeEventSearchAnswer } from "../schemas/free-events.js";

const BASE = "/archivist/v1/events";
const group = "eventsv1";
const freeEvent = z.object({
  attributes: z.record(z.string(), z.unknown()).optional(),
  trails: z.array(z.string()).optional(),
  event_type: z.string().optional(),
  erasable_attributes: erasableAttributes(),
});

function bodyBytes(req: FastifyRequest): number {
  const len = Number(req.headers["content-length"]);
  return Number.isFinite(len) ? len : Buffer.byteLength(JSON.stringify(req.body ?? {}));
}

const search = z.object({
  filter: z.string().max(4096).optional(),
  top: z.number().int().optional(),
  skip: z.number().int().optional(),
});

/** Asset-free events: create, read, OData search. */
export function freeEventRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "post",
    path: `${BASE}/search`,
    group,
    auth: "token",
    summary: "Search asset-free events (OData filter, top ≤ 50, skip)",
    body: search,
    bodyRequired: false,
    response: freeEventSearchAnswer,
    handler: async ({ principal: p, body, res }) => {
      const { events, total } = await searchEvents(d.ctx, p, body);
      res.header("x-total-count", String(total));
      return { events };
    },
  });
  t.add({
    method: "post",
    path: BASE,
    group,
    auth: "token",
    summary: "Create an asset-free event (64 KB maximum)",
    response: freeEventOut,
    body: freeEvent,
    handler: ({ principal: p, body, req }) => createFreeEvent(d.ctx, p, body, bodyBytes(req)),
  });
  t.add({
    method: "get",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Get an asset-free event",
    response: freeEventOut,
    handler: ({ principal: p, params }) => readFreeEvent(d.ctx, p, pathUuid(params.uuid, "event")),
  });
}
