import accepts from "accepts";
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { forbidden } from "../../errors/api-error.js";
import { pathUuid } from "../../errors/path-uuid.js";
import { encodeCbor } from "../../formats/cbor/encode.js";
import type { MmrProofForm } from "../../formats/cose/receipt.js";
import { serviceJwks } from "../../services/ledger/ledger-info.js";
import type { Profile } from "../../services/ledger/proofs.js";
import {
  type EntryReader,
  entryReceipt,
  entryStatement,
  registerBySignature,
  registerStatement,
} from "../../services/scitt/scitt.js";
import { transparencyConfiguration } from "../../services/scitt/transparency-configuration.js";
import { untilOnStandby } from "../../services/write/acknowledged.js";
import { sendCose } from "../cose-response.js";
import { markDeprecated } from "../deprecation.js";
import type { HttpDeps } from "../deps.js";
import { profileQuery, requestedMmrForm, requestedProfile, sendReceipt } from "../receipt-negotiation.js";
import type { Call, RouteTable } from "../route.js";
import { scrapi } from "../scrapi-handler.js";

// SCRAPI (draft -11) for one log: the service's public log, or under `/tenants/{tenant}` a
// tenancy's (scitt.ts registers both, beside the DataTrails form).

const group = "scitt";
export const transparentQuery = profileQuery.extend({ transparent: z.enum(["true", "false"]).optional() });

/** Which entry a read names, who reads it, and the receipt form asked for. */
interface EntryRead {
  reader: EntryReader;
  id: string;
  profile: Profile;
  form: MmrProofForm;
}

export function bodyBytes(req: FastifyRequest): Uint8Array {
  return req.body instanceof Buffer ? new Uint8Array(req.body) : new Uint8Array();
}

/**
 * A registration's operation, as the older SCRAPI drafts and DataTrails' form answer it: an entry
 * is its own operation, running until its receipt exists, then naming itself (both spellings).
 */
export function operation(id: string, done: boolean): Record<string, string> {
  if (!done) return { operationID: id, status: "running" };
  return { operationID: id, status: "succeeded", entryID: id, Status: "succeeded", EntryID: id };
}

/** The log a path names: under `/tenants/{tenant}` a tenancy's (400 for a bad id), else the service's. */
const tenantOf = (prefix: string, params: Record<string, string | undefined>) =>
  prefix ? pathUuid(params.tenant, "log") : undefined;
/** The path prefix an answer names its own log by. */
const self = (prefix: string, params: Record<string, string | undefined>) =>
  prefix ? `/tenants/${params.tenant}` : "";

/** What a client reads first: the log's configuration and the service's keys. */
function discoveryRoutes(t: RouteTable, d: HttpDeps, prefix: string): void {
  t.add({
    method: "get",
    path: `${prefix}/.well-known/transparency-configuration`,
    group,
    auth: "public",
    summary:
      "SCRAPI transparency configuration (CBOR; JSON when asked; legacy in SCRAPI -11, kept for today's clients)",
    handler: async ({ params, req, res }) => {
      if (prefix) tenantOf(prefix, params);
      markDeprecated(res, "/.well-known/scitt-keys");
      const config = transparencyConfiguration(d.ctx, self(prefix, params));
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
}

/** A statement's registration: by token, or by signature alone where the log's policy allows it. */
function registrationRoute(t: RouteTable, d: HttpDeps, prefix: string): void {
  t.add({
    method: "post",
    path: `${prefix}/entries`,
    group,
    auth: "optional",
    summary:
      "SCRAPI: register a signed statement (application/cose); without a token where the log's registration policy allows it",
    query: profileQuery,
    handler: scrapi(async ({ caller, params, query, req, res }) => {
      const tenant = tenantOf(prefix, params);
      const body = bodyBytes(req);
      let entryId: string;
      if (caller) {
        if (tenant && tenant !== caller.tenantId)
          throw forbidden("a token registers only in its own tenancy's log");
        entryId = await registerStatement(d.ctx, caller, body);
      } else entryId = await registerBySignature(d.ctx, tenant, body);
      await untilOnStandby(d.ctx);
      const profile = requestedProfile(req, query, d.ctx.config.scrapiReceiptProfile);
      const form = requestedMmrForm(req, query);
      const receipt = await d.ctx.publications.wait(
        () => entryReceipt(d.ctx, { caller, log: tenant }, entryId, profile, form),
        d.ctx.config.scrapiWaitMs,
      );
      const location = `${self(prefix, params)}/entries/${entryId}`;
      if (receipt) return sendReceipt(req, res.header("location", location), receipt, { status: 201 });
      // SCRAPI -11 (after the IESG's DISCUSS): 202 Accepted, poll the one stable Location.
      if (d.ctx.config.scrapiPendingStatus === 202)
        return res.code(202).header("location", location).header("retry-after", "1").send();
      // Older drafts, by option: 303 to the registration's operation, which names the entry once
      // it is done (vcon-server's scitt link and storage backend poll it for `entryID`).
      return res
        .code(303)
        .header("location", `${self(prefix, params)}/operations/${entryId}`)
        .header("retry-after", "1")
        .send();
    }),
  });
}

/** A read of one entry of this log, with the receipt profile and MMR form the caller asks for. */
function entryRead<Q extends typeof profileQuery>(
  t: RouteTable,
  d: HttpDeps,
  prefix: string,
  read: {
    path: string;
    summary: string;
    query: Q;
    answer: (call: Call<unknown, z.infer<Q>, "optional">, entry: EntryRead) => Promise<unknown>;
  },
): void {
  t.add({
    method: "get",
    path: `${prefix}/entries/{id}${read.path}`,
    group,
    auth: "optional",
    summary: read.summary,
    query: read.query,
    handler: scrapi(async (call: Call<unknown, z.infer<Q>, "optional">) => {
      const { caller, params, query, req } = call;
      const log = tenantOf(prefix, params);
      const profile = requestedProfile(req, query, d.ctx.config.scrapiReceiptProfile);
      const form = requestedMmrForm(req, query);
      return read.answer(call, { reader: { caller, log }, id: params.id ?? "", profile, form });
    }),
  });
}

/** An entry's receipt (204 while it is being registered), as SCRAPI -11 reads it. */
function entryReceiptRoute(t: RouteTable, d: HttpDeps, prefix: string): void {
  entryRead(t, d, prefix, {
    path: "",
    summary:
      "SCRAPI -11: the receipt of an entry (204 while it is being registered, 404 if it is not registered); profile=rfc9162|mmr or Accept vds. No token for the entries of open and public logs",
    query: profileQuery,
    answer: async ({ params, req, res }, e) => {
      const receipt = await entryReceipt(d.ctx, e.reader, e.id, e.profile, e.form);
      if (receipt) return sendReceipt(req, res, receipt);
      // SCRAPI -11: 204 while registering, not to be cached. Older drafts' clients (by option): 302 to itself.
      if (d.ctx.config.scrapiPendingStatus === 303)
        return res
          .code(302)
          .header("location", `${self(prefix, params)}/entries/${params.id}`)
          .header("retry-after", "1")
          .send();
      return res.code(204).header("retry-after", "1").header("cache-control", "no-store").send();
    },
  });
}

/** A registration's operation, as the older drafts poll it; legacy since -11's entry read. */
function operationRoute(t: RouteTable, d: HttpDeps, prefix: string): void {
  t.add({
    method: "get",
    path: `${prefix}/operations/{id}`,
    group,
    auth: "optional",
    summary:
      "Older SCRAPI drafts: a registration's operation (202 running, 200 succeeded with its entryID; JSON, or CBOR when asked). Legacy in -11: GET /entries/{id} succeeds it",
    handler: scrapi(async ({ caller, params, req, res }) => {
      const log = tenantOf(prefix, params);
      const id = params.id ?? "";
      markDeprecated(res, `${self(prefix, params)}/entries/${id}`);
      // Throws 404 for an entry that was never registered (or is not this log's, or not the caller's).
      const receipt = await entryReceipt(d.ctx, { caller, log }, id);
      const status = operation(id, receipt !== undefined);
      if (!receipt) res.code(202).header("retry-after", "1").header("cache-control", "no-store");
      if (accepts(req.raw).type(["application/json", "application/cbor"]) === "application/cbor")
        return res.header("content-type", "application/cbor").send(Buffer.from(encodeCbor(status)));
      return status;
    }),
  });
}

/** SCRAPI's routes of one log, `prefix` naming it (empty for the service's public log). */
export function scrapiRoutes(t: RouteTable, d: HttpDeps, prefix: string): void {
  discoveryRoutes(t, d, prefix);
  registrationRoute(t, d, prefix);
  entryReceiptRoute(t, d, prefix);
  operationRoute(t, d, prefix);
  entryRead(t, d, prefix, {
    path: "/statement",
    summary:
      "The registered statement (transparent=true: with its receipt). No token for the entries of open and public logs",
    query: transparentQuery,
    answer: async ({ query, res }, e) =>
      sendCose(
        res,
        await entryStatement(d.ctx, e.reader, e.id, query.transparent === "true", e.profile, e.form),
      ),
  });
}
