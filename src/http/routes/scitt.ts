import accepts from "accepts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { forbidden } from "../../errors/api-error.js";
import { pathUuid } from "../../errors/path-uuid.js";
import { encodeCbor } from "../../formats/cbor/encode.js";
import type { MmrProofForm } from "../../formats/cose/receipt.js";
import { requireReadableEvent } from "../../services/access/readable-records.js";
import { serviceJwks } from "../../services/ledger/ledger-info.js";
import type { Profile } from "../../services/ledger/proofs.js";
import {
  addScittKey,
  assetEventStatement,
  dataTrailsEntryReceipt,
  dataTrailsEntryStatement,
  type EntryReader,
  entryReceipt,
  entryStatement,
  freeEventStatement,
  registerBySignature,
  registerDataTrailsStatement,
  registerStatement,
  registrationPolicy,
  removeScittKey,
  scittKeyList,
  setRegistrationPolicy,
} from "../../services/scitt/scitt.js";
import { transparencyConfiguration } from "../../services/scitt/transparency-configuration.js";
import { untilOnStandby } from "../../services/write/acknowledged.js";
import { OpaqueBody } from "../body.js";
import { sendCose } from "../cose-response.js";
import { markDeprecated } from "../deprecation.js";
import type { HttpDeps } from "../deps.js";
import { dataTrailsRefusal } from "../errors.js";
import { profileQuery, requestedMmrForm, requestedProfile, sendReceipt } from "../receipt-negotiation.js";
import type { Call, RouteTable } from "../route.js";
import { scrapi } from "../scrapi-handler.js";

const group = "scitt";
const transparentQuery = profileQuery.extend({ transparent: z.enum(["true", "false"]).optional() });

/** Which entry a read names, who reads it, and the receipt form asked for. */
interface EntryRead {
  reader: EntryReader;
  id: string;
  profile: Profile;
  form: MmrProofForm;
}

function bodyBytes(req: FastifyRequest): Uint8Array {
  return req.body instanceof Buffer ? new Uint8Array(req.body) : new Uint8Array();
}

/**
 * A registration's operation, as the older SCRAPI drafts and DataTrails' form answer it: an entry
 * is its own operation, running until its receipt exists, then naming itself (both spellings).
 */
function operation(id: string, done: boolean): Record<string, string> {
  if (!done) return { operationID: id, status: "running" };
  return { operationID: id, status: "succeeded", entryID: id, Status: "succeeded", EntryID: id };
}

/**
 * A DataTrails-form statement's bytes: sent as COSE or CBOR, or as DataTrails' clients send it,
 * with no content type (their SCITT samples) or as `application/octet-stream` (their SDK's
 * `post_binary`). Whatever the type, the bytes must still be a COSE_Sign1 statement.
 */
function dataTrailsBody(req: FastifyRequest): Uint8Array {
  return req.body instanceof OpaqueBody ? req.body.bytes : bodyBytes(req);
}

/**
 * Whether a DataTrails-form answer is JSON: only when JSON is asked for by name over CBOR.
 * DataTrails answers CBOR; its clients accept any type and parse CBOR.
 */
const dataTrailsJson = (req: FastifyRequest) =>
  accepts(req.raw).type(["application/cbor", "application/json"]) === "application/json";

/** A DataTrails-form operation, as CBOR unless JSON is asked for. */
function sendOperation(req: FastifyRequest, res: FastifyReply, status: Record<string, string>) {
  if (dataTrailsJson(req)) return status;
  return res.header("content-type", "application/cbor").send(Buffer.from(encodeCbor(status)));
}

/** A registration's operation in DataTrails' form: DataTrails' own spellings (`OperationID`, `Status`) too. */
function dataTrailsOperation(id: string, done: boolean): Record<string, string> {
  return { ...operation(id, done), OperationID: id, Status: done ? "succeeded" : "running" };
}

/** Runs a DataTrails-form registration, answering a policy refusal as `{type, detail}` JSON. */
async function registerDataTrails(
  d: HttpDeps,
  req: FastifyRequest,
  res: FastifyReply,
  p: Parameters<typeof registerStatement>[1],
) {
  try {
    return await registerDataTrailsStatement(d.ctx, p, dataTrailsBody(req));
  } catch (err) {
    const refusal = dataTrailsRefusal(err);
    if (!refusal) throw err;
    res.code(400).send(refusal);
    return undefined;
  }
}

/**
 * SCRAPI (draft -11) for the service's public log and, under `/tenants/{tenant}`, for each
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
    summary:
      "DataTrails form: register a signed statement (COSE_Sign1 as application/cose, application/octet-stream or no content type) as a public asset event; answers CBOR {OperationID, Status}, JSON when asked",
    handler: async ({ principal: p, req, res }) => {
      const entryId = await registerDataTrails(d, req, res, p);
      if (!entryId) return undefined;
      // Answered by the handler itself: the edge's wait for the standby (app.ts) is made here.
      await untilOnStandby(d.ctx);
      // DataTrails' answer is exactly {OperationID, Status}; JSON keeps the spellings it always had.
      if (dataTrailsJson(req)) return operation(entryId, false);
      return sendOperation(req, res, { OperationID: entryId, Status: "running" });
    },
  });
  // The form's status and receipt reads look the entry's receipt up, and are deprecated for
  // SCRAPI's `GET /entries/{id}` (MMR profile); each answers 202 while there is none yet.
  const receiptRead = (
    path: string,
    what: string,
    answer: (id: string, receipt: Uint8Array | undefined, req: FastifyRequest, res: FastifyReply) => unknown,
  ) =>
    t.add({
      method: "get",
      path: `${dt}/${path}`,
      group,
      auth: "optional",
      summary: `DataTrails form: ${what} (legacy for SCRAPI's entries: GET /entries/{id} succeeds it)`,
      handler: async ({ caller, params, req, res }) => {
        const id = params.id ?? "";
        // SCRAPI's successor reads the entries SCRAPI registered; a DataTrails-form entry has none.
        if (id.startsWith("events_")) markDeprecated(res, `/entries/${id}?profile=mmr`);
        const receipt = await dataTrailsEntryReceipt(d.ctx, caller, id);
        if (!receipt) res.code(202);
        return answer(id, receipt, req, res);
      },
    });
  receiptRead(
    "operations/{id}",
    "registration status (CBOR {Status, EntryID}; JSON when asked)",
    (id, receipt, req, res) => sendOperation(req, res, dataTrailsOperation(id, receipt !== undefined)),
  );
  receiptRead("entries/{id}/receipt", "the receipt of an entry", (id, receipt, req, res) =>
    receipt ? sendCose(res, receipt) : sendOperation(req, res, dataTrailsOperation(id, false)),
  );
  t.add({
    method: "get",
    path: `${dt}/entries/{id}`,
    group,
    auth: "optional",
    summary: "DataTrails form: the registered statement, as registered",
    handler: async ({ caller, params, res }) =>
      sendCose(res, await dataTrailsEntryStatement(d.ctx, caller, params.id ?? "")),
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
        await assetEventStatement(
          d.ctx,
          event,
          query.transparent === "true",
          grant,
          profile,
          requestedMmrForm(req, query),
        ),
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
          requestedMmrForm(req, query),
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
    summary:
      "SCRAPI transparency configuration (CBOR; JSON when asked; legacy in SCRAPI -11, kept for today's clients)",
    handler: async ({ params, req, res }) => {
      if (prefix) tenantOf(params);
      markDeprecated(res, "/.well-known/scitt-keys");
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
      await untilOnStandby(d.ctx);
      const profile = requestedProfile(req, query, d.ctx.config.scrapiReceiptProfile);
      const form = requestedMmrForm(req, query);
      const receipt = await d.ctx.publications.wait(
        () => entryReceipt(d.ctx, { caller, log: tenant }, entryId, profile, form),
        d.ctx.config.scrapiWaitMs,
      );
      const location = `${self(params)}/entries/${entryId}`;
      if (receipt) return sendReceipt(req, res.header("location", location), receipt, { status: 201 });
      // SCRAPI -11 (after the IESG's DISCUSS): 202 Accepted, poll the one stable Location.
      if (d.ctx.config.scrapiPendingStatus === 202)
        return res.code(202).header("location", location).header("retry-after", "1").send();
      // Older drafts, by option: 303 to the registration's operation, which names the entry once
      // it is done (vcon-server's scitt link and storage backend poll it for `entryID`).
      return res
        .code(303)
        .header("location", `${self(params)}/operations/${entryId}`)
        .header("retry-after", "1")
        .send();
    }),
  });
  /** A read of one entry of this log, with the receipt profile and MMR form the caller asks for. */
  const entryRead = <Q extends typeof profileQuery>(
    path: string,
    summary: string,
    query: Q,
    answer: (call: Call<unknown, z.infer<Q>, "optional">, entry: EntryRead) => Promise<unknown>,
  ) =>
    t.add({
      method: "get",
      path: `${prefix}/entries/{id}${path}`,
      group,
      auth: "optional",
      summary,
      query,
      handler: scrapi(async (call: Call<unknown, z.infer<Q>, "optional">) => {
        const { caller, params, query, req } = call;
        const log = tenantOf(params);
        const profile = requestedProfile(req, query, d.ctx.config.scrapiReceiptProfile);
        const form = requestedMmrForm(req, query);
        return answer(call, { reader: { caller, log }, id: params.id ?? "", profile, form });
      }),
    });
  entryRead(
    "",
    "SCRAPI -11: the receipt of an entry (204 while it is being registered, 404 if it is not registered); profile=rfc9162|mmr or Accept vds. No token for the entries of open and public logs",
    profileQuery,
    async ({ params, req, res }, e) => {
      const receipt = await entryReceipt(d.ctx, e.reader, e.id, e.profile, e.form);
      if (receipt) return sendReceipt(req, res, receipt);
      // SCRAPI -11: 204 while registering, not to be cached. Older drafts' clients (by option): 302 to itself.
      if (d.ctx.config.scrapiPendingStatus === 303)
        return res
          .code(302)
          .header("location", `${self(params)}/entries/${params.id}`)
          .header("retry-after", "1")
          .send();
      return res.code(204).header("retry-after", "1").header("cache-control", "no-store").send();
    },
  );
  t.add({
    method: "get",
    path: `${prefix}/operations/{id}`,
    group,
    auth: "optional",
    summary:
      "Older SCRAPI drafts: a registration's operation (202 running, 200 succeeded with its entryID; JSON, or CBOR when asked). Legacy in -11: GET /entries/{id} succeeds it",
    handler: scrapi(async ({ caller, params, req, res }) => {
      const log = tenantOf(params);
      const id = params.id ?? "";
      markDeprecated(res, `${self(params)}/entries/${id}`);
      // Throws 404 for an entry that was never registered (or is not this log's, or not the caller's).
      const receipt = await entryReceipt(d.ctx, { caller, log }, id);
      const status = operation(id, receipt !== undefined);
      if (!receipt) res.code(202).header("retry-after", "1").header("cache-control", "no-store");
      if (accepts(req.raw).type(["application/json", "application/cbor"]) === "application/cbor")
        return res.header("content-type", "application/cbor").send(Buffer.from(encodeCbor(status)));
      return status;
    }),
  });
  entryRead(
    "/statement",
    "The registered statement (transparent=true: with its receipt). No token for the entries of open and public logs",
    transparentQuery,
    async ({ query, res }, e) =>
      sendCose(
        res,
        await entryStatement(d.ctx, e.reader, e.id, query.transparent === "true", e.profile, e.form),
      ),
  );
}
