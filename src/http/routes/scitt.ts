import accepts from "accepts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { forbidden } from "../../core/api/api-error.js";
import { pathUuid } from "../../core/api/ids.js";
import { encodeCbor } from "../../core/cbor/index.js";
import { requireReadableEvent } from "../../services/access/readable-records.js";
import { serviceJwks } from "../../services/ledger/ledger-info.js";
import {
  addScittKey,
  assetEventStatement,
  entryReceipt,
  entryStatement,
  freeEventStatement,
  registerBySignature,
  registerStatement,
  registrationPolicy,
  removeScittKey,
  scittKeyList,
  setRegistrationPolicy,
} from "../../services/scitt/scitt.js";
import { transparencyConfiguration } from "../../services/scitt/transparency-configuration.js";
import { sendCose } from "../cose-response.js";
import type { HttpDeps } from "../deps.js";
import { dataTrailsRefusal, scittProblem, sendProblem } from "../errors.js";
import { profileQuery, requestedProfile, sendReceipt } from "../receipt-negotiation.js";
import type { Auth, Call, RouteTable } from "../route.js";

const group = "scitt";
const transparentQuery = profileQuery.extend({ transparent: z.enum(["true", "false"]).optional() });

function bodyBytes(req: FastifyRequest): Uint8Array {
  return req.body instanceof Buffer ? new Uint8Array(req.body) : new Uint8Array();
}

/** A SCRAPI handler whose failures are problem details, never the DataTrails error body. */
function scrapi<Q, A extends Auth>(
  fn: (c: Call<unknown, Q, A>) => Promise<unknown>,
): (c: Call<unknown, Q, A>) => Promise<unknown> {
  return async (c) => {
    try {
      return await fn(c);
    } catch (err) {
      const answer = scittProblem(err);
      if (!answer) throw err;
      return sendProblem(c.req, c.res, answer.problem, answer.headers);
    }
  };
}

/** Runs a DataTrails-form registration, answering a policy refusal as `{type, detail}` JSON. */
async function registerDataTrails(
  d: HttpDeps,
  req: FastifyRequest,
  res: FastifyReply,
  p: Parameters<typeof registerStatement>[1],
) {
  try {
    return await registerStatement(d.ctx, p, bodyBytes(req));
  } catch (err) {
    const refusal = dataTrailsRefusal(err);
    if (!refusal) throw err;
    res.code(400).send(refusal);
    return undefined;
  }
}

/**
 * SCRAPI (draft -10) for the service's public log and, under `/tenants/{tenant}`, for each
 * tenancy's log; the DataTrails-form registration; per-event statements; trusted issuer keys.
 */
export function scittRoutes(t: RouteTable, d: HttpDeps): void {
  for (const prefix of ["", "/tenants/{tenant}"]) scrapiRoutes(t, d, prefix);
  const dt = "/archivist/v1/publicscitt";
  t.add({
    method: "post",
    path: `${dt}/entries`,
    group,
    auth: "token",
    summary: "DataTrails form: register a signed statement",
    handler: async ({ principal: p, req, res }) => {
      const entryId = await registerDataTrails(d, req, res, p);
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
    auth: "optional",
    summary: "DataTrails form: registration status",
    handler: async ({ caller, params, res }) => {
      const done = await entryReceipt(d.ctx, { caller, log: undefined }, params.id ?? "");
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
    auth: "optional",
    summary: "DataTrails form: the receipt of an entry",
    handler: async ({ caller, params, res }) => {
      const receipt = await entryReceipt(d.ctx, { caller, log: undefined }, params.id ?? "");
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
    auth: "optional",
    summary: "DataTrails form: the registered statement",
    handler: async ({ caller, params, res }) =>
      sendCose(res, await entryStatement(d.ctx, { caller, log: undefined }, params.id ?? "", false)),
  });
  t.add({
    method: "get",
    path: "/archivist/v2/assets/{asset}/events/{event}/statement",
    group,
    auth: "optional",
    summary: "The signed statement of a template-0.3.0 asset event (transparent=true: with its receipt)",
    query: transparentQuery,
    handler: async ({ caller, params, query, req, res }) => {
      const { event, grant } = await requireReadableEvent(
        d.ctx,
        caller,
        pathUuid(params.asset, "asset"),
        pathUuid(params.event, "event"),
      );
      const profile = requestedProfile(req, query, "mmr");
      return sendCose(
        res,
        await assetEventStatement(d.ctx, event, query.transparent === "true", grant, profile),
      );
    },
  });
  t.add({
    method: "get",
    path: "/archivist/v1/events/{uuid}/statement",
    group,
    auth: "token",
    summary: "The signed statement of a template-carrying asset-free event",
    query: transparentQuery,
    handler: async ({ principal: p, params, query, req, res }) =>
      sendCose(
        res,
        await freeEventStatement(
          d.ctx,
          p,
          pathUuid(params.uuid, "event"),
          query.transparent === "true",
          requestedProfile(req, query, "mmr"),
        ),
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
  t.add({
    method: "get",
    path: "/archivist/v1/scitt/registration-policy",
    group,
    auth: "token",
    summary:
      "The tenancy's SCITT registration policy (open: statements may be registered by signature alone)",
    handler: ({ principal: p }) => registrationPolicy(d.ctx, p),
  });
  t.add({
    method: "put",
    path: "/archivist/v1/scitt/registration-policy",
    group,
    auth: "token",
    summary: "Open or close the tenancy's log to registration by signature, and set its rate",
    body: z.object({
      open: z.boolean(),
      requests_per_second: z.number().int().min(1).max(10_000).optional(),
    }),
    handler: ({ principal: p, body }) => setRegistrationPolicy(d.ctx, p, body),
  });
}

function scrapiRoutes(t: RouteTable, d: HttpDeps, prefix: string): void {
  const tenantOf = (params: Record<string, string | undefined>) =>
    prefix ? pathUuid(params.tenant, "log") : undefined;
  const self = (params: Record<string, string | undefined>) => (prefix ? `/tenants/${params.tenant}` : "");
  t.add({
    method: "get",
    path: `${prefix}/.well-known/transparency-configuration`,
    group,
    auth: "public",
    summary: "SCRAPI transparency configuration (CBOR; JSON when asked)",
    handler: async ({ params, req, res }) => {
      if (prefix) tenantOf(params);
      const config = transparencyConfiguration(d.ctx, self(params));
      if (accepts(req.raw).type(["application/cbor", "application/json"]) === "application/json")
        return config;
      return res.header("content-type", "application/cbor").send(Buffer.from(encodeCbor(config)));
    },
  });
  t.add({
    method: "get",
    path: `${prefix}/jwks`,
    group,
    auth: "public",
    summary: "The service's public keys as a JWK Set (the receipt key first)",
    handler: async ({ res }) =>
      res.header("content-type", "application/jwk-set+json").send(await serviceJwks(d.ctx)),
  });
  t.add({
    method: "post",
    path: `${prefix}/entries`,
    group,
    auth: "optional",
    summary:
      "SCRAPI: register a signed statement (application/cose); without a token where the log's registration policy allows it",
    query: profileQuery,
    handler: scrapi(async ({ caller, params, query, req, res }) => {
      const tenant = tenantOf(params);
      const body = bodyBytes(req);
      let entryId: string;
      if (caller) {
        if (tenant && tenant !== caller.tenantId)
          throw forbidden("a token registers only in its own tenancy's log");
        entryId = await registerStatement(d.ctx, caller, body);
      } else entryId = await registerBySignature(d.ctx, tenant, body);
      const profile = requestedProfile(req, query, d.ctx.config.scrapiReceiptProfile);
      const receipt = await d.ctx.publications.wait(
        () => entryReceipt(d.ctx, { caller, log: tenant }, entryId, profile),
        d.ctx.config.scrapiWaitMs,
      );
      const location = `${self(params)}/entries/${entryId}`;
      res.header("location", location);
      if (receipt) return sendReceipt(req, res, receipt, { status: 201 });
      // Draft -10 (after the IESG's DISCUSS): 202 Accepted, poll the Location. 303 only for older clients, by option.
      return res.code(d.ctx.config.scrapiPendingStatus).header("retry-after", "1").send();
    }),
  });
  t.add({
    method: "get",
    path: `${prefix}/entries/{id}`,
    group,
    auth: "optional",
    summary:
      "SCRAPI: the receipt of an entry (202 while it is being sealed); profile=rfc9162|mmr or Accept vds. No token for the entries of open and public logs",
    query: profileQuery,
    handler: scrapi(async ({ caller, params, query, req, res }) => {
      const log = tenantOf(params);
      const profile = requestedProfile(req, query, d.ctx.config.scrapiReceiptProfile);
      const receipt = await entryReceipt(d.ctx, { caller, log }, params.id ?? "", profile);
      if (receipt) return sendReceipt(req, res, receipt);
      const pending = d.ctx.config.scrapiPendingStatus === 202 ? 202 : 302;
      return res
        .code(pending)
        .header("location", `${self(params)}/entries/${params.id}`)
        .header("retry-after", "1")
        .send();
    }),
  });
  t.add({
    method: "get",
    path: `${prefix}/entries/{id}/statement`,
    group,
    auth: "optional",
    summary:
      "The registered statement (transparent=true: with its receipt). No token for the entries of open and public logs",
    query: transparentQuery,
    handler: scrapi(async ({ caller, params, query, req, res }) => {
      const log = tenantOf(params);
      const profile = requestedProfile(req, query, d.ctx.config.scrapiReceiptProfile);
      return sendCose(
        res,
        await entryStatement(d.ctx, { caller, log }, params.id ?? "", query.transparent === "true", profile),
      );
    }),
  });
}
