import accepts from "accepts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { pathUuid } from "../../core/api/ids.js";
import { encodeCbor } from "../../core/cbor/index.js";
import { problemDetails } from "../../core/scitt/index.js";
import { requireReadableEvent } from "../../services/record-access.js";
import {
  addScittKey,
  assetEventStatement,
  entryReceipt,
  entryStatement,
  freeEventStatement,
  RegistrationRefused,
  registerStatement,
  removeScittKey,
  scittKeyList,
} from "../../services/scitt.js";
import { sendCose } from "../cose-response.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";

const group = "scitt";
const transparentQuery = z.object({ transparent: z.enum(["true", "false"]).optional() });

function bodyBytes(req: FastifyRequest): Uint8Array {
  return req.body instanceof Buffer ? new Uint8Array(req.body) : new Uint8Array();
}

/** Runs a registration, answering a policy refusal as RFC 9290 CBOR (SCRAPI) or `{type, detail}` JSON (DataTrails form). */
async function register(
  d: HttpDeps,
  req: FastifyRequest,
  res: FastifyReply,
  p: Parameters<typeof registerStatement>[1],
  form: "scrapi" | "datatrails",
) {
  try {
    return await registerStatement(d.ctx, p, bodyBytes(req));
  } catch (err) {
    if (!(err instanceof RegistrationRefused)) throw err;
    if (form === "scrapi") {
      res.code(400).header("content-type", "application/concise-problem-details+cbor");
      res.send(
        Buffer.from(
          problemDetails({
            title: "statement refused by the registration policy",
            detail: err.message,
            status: 400,
          }),
        ),
      );
    } else
      res
        .code(400)
        .send({ type: "urn:ietf:params:scitt:error:signed-statement:rejected", detail: err.message });
    return undefined;
  }
}

async function waitForReceipt(d: HttpDeps, entryId: string, ms: number): Promise<Uint8Array | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const r = await entryReceipt(d.ctx, entryId);
    if (r || Date.now() > end) return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** SCRAPI and DataTrails-form registration, entries, receipts, per-event statements and trusted issuer keys. */
export function scittRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "post",
    path: "/entries",
    group,
    auth: "token",
    summary: "SCRAPI: register a signed statement (application/cose)",
    handler: async ({ principal: p, req, res }) => {
      const entryId = await register(d, req, res, p, "scrapi");
      if (!entryId) return undefined;
      const receipt = await waitForReceipt(d, entryId, 3000);
      res.header("location", `/entries/${entryId}`);
      if (receipt) return sendCose(res, receipt, 201);
      return res.code(303).send();
    },
  });
  t.add({
    method: "get",
    path: "/entries/{id}",
    group,
    auth: "public",
    summary: "SCRAPI: the receipt of an entry (302 while it is being sealed)",
    handler: async ({ params, res }) => {
      const receipt = await entryReceipt(d.ctx, params.id ?? "");
      if (receipt) return sendCose(res, receipt);
      return res.code(302).header("location", `/entries/${params.id}`).header("retry-after", "1").send();
    },
  });
  t.add({
    method: "get",
    path: "/entries/{id}/statement",
    group,
    auth: "public",
    summary: "The registered statement (transparent=true: with its receipt)",
    query: transparentQuery,
    handler: async ({ params, query, res }) =>
      sendCose(res, await entryStatement(d.ctx, params.id ?? "", query.transparent === "true")),
  });
  const dt = "/archivist/v1/publicscitt";
  t.add({
    method: "post",
    path: `${dt}/entries`,
    group,
    auth: "token",
    summary: "DataTrails form: register a signed statement",
    handler: async ({ principal: p, req, res }) => {
      const entryId = await register(d, req, res, p, "datatrails");
      if (!entryId) return undefined;
      if (accepts(req.raw).type(["application/json", "application/cbor"]) === "application/cbor")
        return res
          .header("content-type", "application/cbor")
          .send(Buffer.from(encodeCbor({ OperationID: entryId, Status: "running" })));
      return { operationID: entryId, status: "running" };
    },
  });
  t.add({
    method: "get",
    path: `${dt}/operations/{id}`,
    group,
    auth: "public",
    summary: "DataTrails form: registration status",
    handler: async ({ params, res }) => {
      const done = await entryReceipt(d.ctx, params.id ?? "");
      if (!done) {
        res.code(202);
        return { operationID: params.id, status: "running" };
      }
      return {
        operationID: params.id,
        status: "succeeded",
        entryID: params.id,
        Status: "succeeded",
        EntryID: params.id,
      };
    },
  });
  t.add({
    method: "get",
    path: `${dt}/entries/{id}/receipt`,
    group,
    auth: "public",
    summary: "DataTrails form: the receipt of an entry",
    handler: async ({ params, res }) => {
      const receipt = await entryReceipt(d.ctx, params.id ?? "");
      if (!receipt) {
        res.code(202);
        return { operationID: params.id, status: "running" };
      }
      return sendCose(res, receipt);
    },
  });
  t.add({
    method: "get",
    path: `${dt}/entries/{id}`,
    group,
    auth: "public",
    summary: "DataTrails form: the registered statement",
    handler: async ({ params, res }) => sendCose(res, await entryStatement(d.ctx, params.id ?? "", false)),
  });
  t.add({
    method: "get",
    path: "/archivist/v2/assets/{asset}/events/{event}/statement",
    group,
    auth: "optional",
    summary: "The signed statement of a template-0.3.0 asset event (transparent=true: with its receipt)",
    query: transparentQuery,
    handler: async ({ caller, params, query, res }) => {
      const asset = pathUuid(params.asset, "asset");
      const event = pathUuid(params.event, "event");
      await requireReadableEvent(d.ctx, caller, asset, event);
      return sendCose(res, await assetEventStatement(d.ctx, asset, event, query.transparent === "true"));
    },
  });
  t.add({
    method: "get",
    path: "/archivist/v1/events/{uuid}/statement",
    group,
    auth: "token",
    summary: "The signed statement of a template-carrying asset-free event",
    query: transparentQuery,
    handler: async ({ principal: p, params, query, res }) =>
      sendCose(
        res,
        await freeEventStatement(d.ctx, p, pathUuid(params.uuid, "event"), query.transparent === "true"),
      ),
  });
  t.add({
    method: "get",
    path: "/archivist/v1/scitt/keys",
    group,
    auth: "token",
    summary: "Trusted statement issuer keys of the tenancy",
    handler: ({ principal: p }) => scittKeyList(d.ctx, p),
  });
  t.add({
    method: "post",
    path: "/archivist/v1/scitt/keys",
    group,
    auth: "token",
    summary: "Trust a statement issuer key (P-256 JWK)",
    body: z.object({
      kid: z.string().min(1).max(256),
      display_name: z.string().optional(),
      public_jwk: z.record(z.string(), z.unknown()),
    }),
    handler: ({ principal: p, body }) => addScittKey(d.ctx, p, body),
  });
  t.add({
    method: "delete",
    path: "/archivist/v1/scitt/keys/{kid}",
    group,
    auth: "token",
    summary: "Stop trusting an issuer key",
    handler: async ({ principal: p, params }) => {
      await removeScittKey(d.ctx, p, params.kid ?? "");
      return {};
    },
  });
}
