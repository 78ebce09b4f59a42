import accepts from "accepts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { pathUuid } from "../../errors/path-uuid.js";
import { encodeCbor } from "../../formats/cbor/encode.js";
import { requireReadableEvent } from "../../services/access/readable-records.js";
import { addScittKey, removeScittKey, scittKeyList } from "../../services/scitt/issuer-keys.js";
import { registrationPolicy, setRegistrationPolicy } from "../../services/scitt/registration-policy.js";
import {
  assetEventStatement,
  dataTrailsEntryReceipt,
  dataTrailsEntryStatement,
  freeEventStatement,
  registerDataTrailsStatement,
  type registerStatement,
} from "../../services/scitt/scitt.js";
import { untilOnStandby } from "../../services/write/acknowledged.js";
import { OpaqueBody } from "../body.js";
import { sendCose } from "../cose-response.js";
import { markDeprecated } from "../deprecation.js";
import type { HttpDeps } from "../deps.js";
import { dataTrailsRefusal } from "../errors.js";
import { requestedMmrForm, requestedProfile } from "../receipt-negotiation.js";
import type { RouteTable } from "../route.js";
import { bodyBytes, operation, scrapiRoutes, transparentQuery } from "./scrapi.js";

const group = "scitt";

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

const dt = "/archivist/v1/publicscitt";

/** DataTrails' form of registration: a statement made a public asset event, and its reads. */
function dataTrailsRoutes(t: RouteTable, d: HttpDeps): void {
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
}

/** The signed statement a template-carrying event makes, of an asset or asset-free. */
function eventStatementRoutes(t: RouteTable, d: HttpDeps): void {
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
}

/** The tenancy's trusted statement issuer keys. */
function issuerKeyRoutes(t: RouteTable, d: HttpDeps): void {
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
    summary:
      "Trust a statement issuer key: a public JWK, EC on P-256, P-384 or P-521 (ES256, ES384, ES512) or OKP Ed25519 (EdDSA)",
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

/** Whether the tenancy's log takes statements by signature alone, and at what rate. */
function registrationPolicyRoutes(t: RouteTable, d: HttpDeps): void {
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

/**
 * SCRAPI (draft -11) for the service's public log and, under `/tenants/{tenant}`, for each
 * tenancy's log; the DataTrails-form registration; per-event statements; trusted issuer keys.
 * In the API document's order (docs/api.md lists routes as they are added).
 */
export function scittRoutes(t: RouteTable, d: HttpDeps): void {
  for (const prefix of ["", "/tenants/{tenant}"]) scrapiRoutes(t, d, prefix);
  dataTrailsRoutes(t, d);
  eventStatementRoutes(t, d);
  issuerKeyRoutes(t, d);
  registrationPolicyRoutes(t, d);
}
