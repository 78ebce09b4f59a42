import type { Ctx, Principal } from "../../context.js";
import { type AccessGrant, projectEvent } from "../../core/access/index.js";
import {
  attachReceipts,
  checkScreenedStatement,
  eventToStatement,
  registeredEvent,
  type ScreenedStatement,
  StatementError,
  screenStatement,
} from "../../core/scitt/index.js";
import { ApiError, badRequest, forbidden, notFound } from "../../errors/api-error.js";
import { CodedError } from "../../formats/coded-error.js";
import type { MmrProofForm } from "../../formats/cose/receipt.js";
import { fromBase64, toBase64 } from "../../formats/crypto/bytes.js";
import { isUuid } from "../../formats/ids.js";
import type { ApiRecord } from "../../formats/record/api-record.js";
import { assetEventRecord } from "../../formats/record/asset-event.js";
import { freeEventRecord } from "../../formats/record/free-event.js";
import { signedWith } from "../../keys/keyring.js";
import { getRegistrationPolicy } from "../../store/identity/scitt-registration-policies.js";
import { getTenancy } from "../../store/identity/tenancies.js";
import { tlsCaCertificateRows } from "../../store/identity/tlscacertificates.js";
import type { AssetEventRow } from "../../store/records/asset-events.js";
import { getFreeEvent, getStatement } from "../../store/records/free-events.js";
import { writeViewFor } from "../access/caller-view.js";
import {
  requireReadableEvent,
  requireReadableRecord,
  requireReadableStatement,
} from "../access/readable-records.js";
import { type Profile, receiptFor, recordFollowsLog, statementFollowsLog } from "../ledger/proofs.js";
import { createAssetWithEvents } from "../records/assets.js";
import { createFreeEvent } from "../records/free-events.js";
import { tenancyIssuer, trustedKeys } from "./issuer-keys.js";

/** A registration refused by policy: answered as problem details (CBOR or JSON by route). */
export class RegistrationRefused extends CodedError<"REGISTRATION_REFUSED"> {
  readonly code = "REGISTRATION_REFUSED";
}

/** A registration without a token in a log whose policy requires one. */
export class RegistrationClosed extends CodedError<"REGISTRATION_CLOSED"> {
  readonly code = "REGISTRATION_CLOSED";
}

/** Entry ids are the event identity with `/` written `_`. */
const entryIdOf = (eventUuid: string) => `events_${eventUuid}`;

/**
 * The event uuid of an entry id; undefined for an id no entry can have, which is refused as an
 * entry nobody registered is (`requireReadableStatement`), so its form tells nothing either.
 */
function eventOfEntry(entryId: string): string | undefined {
  const uuid = entryId.replace(/^events_/, "");
  return entryId.startsWith("events_") && isUuid(uuid) ? uuid.toLowerCase() : undefined;
}

/**
 * The issuer rules of the tenancy's log: its trusted keys and TLS CA certificates. What the
 * statement's own bytes decide is checked before anything is read from the database.
 */
async function checkIssuer(
  ctx: Pick<Ctx, "baseUrl" | "db" | "keys">,
  tenantId: string,
  screened: ScreenedStatement,
) {
  const cas = (await tlsCaCertificateRows(ctx.db, tenantId, {}).page(0, 1000)).map((c) => c.pem);
  const verdict = checkScreenedStatement(screened, {
    keys: await trustedKeys(ctx, tenantId),
    caCertificatesPem: cas,
  });
  if (!verdict.ok) throw new RegistrationRefused(verdict.reason);
  return verdict;
}

function screen(statement: Uint8Array): ScreenedStatement {
  if (statement.length === 0)
    throw new RegistrationRefused("the body must be a COSE_Sign1 signed statement (application/cose)");
  const screened = screenStatement(statement);
  if (!screened.ok) throw new RegistrationRefused(screened.reason);
  return screened.statement;
}

/** Registers a signed statement in the caller's log, after the tenancy's registration policy. */
export async function registerStatement(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "db" | "keys" | "writePath">,
  p: Principal,
  statement: Uint8Array,
): Promise<string> {
  await admit(ctx, p, statement);
  return record(ctx, p, statement);
}

/** A statement an administrator of the tenancy may register: screened, its issuer trusted. */
async function admit(
  ctx: Pick<Ctx, "baseUrl" | "db" | "keys">,
  p: Principal,
  statement: Uint8Array,
): Promise<void> {
  if (!p.isAdmin) throw forbidden("registering statements needs administrator rights in this tenancy");
  await checkIssuer(ctx, p.tenantId, screen(statement));
}

/**
 * Registration by signature: a statement sent without a bearer token, authenticated by its
 * signature and the issuer rules of the log it goes to. Allowed in the service-level public log
 * (`ARCHIVIST_SCITT_PUBLIC_LOG`) and in tenancies whose registration policy is open.
 */
export async function registerBySignature(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "config" | "db" | "keys" | "registrationRate" | "writePath">,
  tenantId: string | undefined,
  statement: Uint8Array,
): Promise<string> {
  const target = tenantId ?? ctx.config.scittPublicLog;
  // Refusals that need no look-up come first: a statement sent without a token costs its
  // sender nothing, so what it costs us must not include reads (issue 31's x5chain flood).
  const screened = screen(statement);
  if (!target) throw new RegistrationClosed("this service has no public log: register with a bearer token");
  const policy = await getRegistrationPolicy(ctx.db, target);
  // A log that does not exist answers as a closed one: whether a tenancy exists is not told.
  const open = target === ctx.config.scittPublicLog || policy.open;
  if (!open || !(await getTenancy(ctx.db, target)))
    throw new RegistrationClosed("this log's registration policy requires a bearer token");
  ctx.registrationRate.take(target, policy.requests_per_second);
  const verdict = await checkIssuer(ctx, target, screened);
  return record(ctx, registrant(target, verdict.issuer), statement);
}

/** Who a registration by signature is recorded as: the statement's issuer, in the log's tenancy. */
function registrant(tenantId: string, issuer: string): Principal {
  return {
    tenantId,
    kind: "application",
    id: "scitt-registration",
    issuer,
    subject: issuer,
    displayName: issuer,
    email: "",
    claims: {},
    roles: [],
    isAdmin: true,
  };
}

async function record(
  ctx: Pick<Ctx, "writePath" | "db" | "caches">,
  p: Principal,
  statement: Uint8Array,
): Promise<string> {
  const e = registeredEvent(statement);
  const created = await createFreeEvent(
    ctx,
    p,
    { attributes: e.attributes, trails: e.trails, event_type: e.event_type },
    0,
    statement,
  );
  return entryIdOf(created.identity.slice("events/".length));
}

/**
 * An entry registered in DataTrails' form: the event of a public asset of its own, identified as
 * DataTrails' clients split it (`assets_<asset>_events_<event>`). Theirs recompute the log's leaf
 * from the event's public record (DataTrails' v3 asset-event leaf), so the statement must be an
 * asset event, and a public one; the statement rides in `signed_statement` (base64), as theirs read it.
 */
const DATATRAILS_ENTRY = /^assets_([0-9a-f-]{36})_events_([0-9a-f-]{36})$/i;

/** The asset and event a DataTrails-form entry id names, or undefined for any other id. */
function assetEntryOf(entryId: string): { asset: string; event: string } | undefined {
  const m = DATATRAILS_ENTRY.exec(entryId);
  if (!m?.[1] || !m[2] || !isUuid(m[1]) || !isUuid(m[2])) return undefined;
  return { asset: m[1].toLowerCase(), event: m[2].toLowerCase() };
}

/** Registers a signed statement in DataTrails' form: the issuer rules as `registerStatement`'s. */
export async function registerDataTrailsStatement(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "db" | "keys" | "writePath">,
  p: Principal,
  statement: Uint8Array,
): Promise<string> {
  await admit(ctx, p, statement);
  const e = registeredEvent(statement);
  const made = await createAssetWithEvents(ctx, p, await writeViewFor(ctx, p), {
    public: true,
    attributes: {
      arc_display_type: e.event_type,
      ...(e.attributes.subject ? { subject: e.attributes.subject } : {}),
    },
    events: [
      {
        operation: "Record",
        behaviour: "RecordEvidence",
        event_attributes: { ...e.attributes, signed_statement: toBase64(statement) },
      },
    ],
  });
  const event = made.events[0];
  if (!event) throw new Error("an asset created with one event answered none");
  return event.identity.replaceAll("/", "_");
}

/**
 * The receipt of an entry read through DataTrails' form: a DataTrails-form entry (anyone may read
 * it: its asset is public), or one registered through SCRAPI, as SCRAPI's root routes read it.
 */
export async function dataTrailsEntryReceipt(
  ctx: Pick<Ctx, "baseUrl" | "blobs" | "caches" | "config" | "db" | "keys" | "logGuard" | "reads">,
  caller: Principal | undefined,
  entryId: string,
): Promise<Uint8Array | undefined> {
  const ref = assetEntryOf(entryId);
  if (!ref) return entryReceipt(ctx, { caller, log: undefined }, entryId);
  await requireReadableEvent(ctx, caller, ref.asset, ref.event);
  try {
    return await receiptFor(ctx, ref.event, "mmr", "map");
  } catch (err) {
    if (err instanceof ApiError && err.kind === "conflict") return undefined;
    throw err;
  }
}

/** The statement of an entry read through DataTrails' form, as registered. */
export async function dataTrailsEntryStatement(
  ctx: Pick<Ctx, "baseUrl" | "blobs" | "caches" | "config" | "db" | "keys" | "logGuard" | "reads">,
  caller: Principal | undefined,
  entryId: string,
): Promise<Uint8Array> {
  const ref = assetEntryOf(entryId);
  if (!ref) return entryStatement(ctx, { caller, log: undefined }, entryId, false);
  const { event } = await requireReadableEvent(ctx, caller, ref.asset, ref.event);
  const carried = event.event_attributes.signed_statement;
  // A public asset event that carries no statement is not an entry.
  if (typeof carried !== "string") throw notFound("entry");
  return fromBase64(carried);
}

/**
 * Who reads an entry: the caller (if a token came) and the log the path names (none for the
 * routes at the service's root, which serve every log's entries to whoever may read them).
 */
export interface EntryReader {
  caller: Principal | undefined;
  log: string | undefined;
}

/** The receipt of a registered entry, or undefined while it is not yet sealed. */
export async function entryReceipt(
  ctx: Pick<Ctx, "baseUrl" | "blobs" | "caches" | "config" | "db" | "keys" | "reads" | "logGuard">,
  reader: EntryReader,
  entryId: string,
  profile: Profile = "mmr",
  form: MmrProofForm = "map",
): Promise<Uint8Array | undefined> {
  const id = await requireReadableStatement(ctx, reader.caller, eventOfEntry(entryId), reader.log);
  try {
    return await receiptFor(ctx, id, profile, form);
  } catch (err) {
    if (err instanceof ApiError && err.kind === "conflict") return undefined;
    throw err;
  }
}

/** The registered statement, as registered or (transparent) with its receipt in header 394. */
export async function entryStatement(
  ctx: Pick<Ctx, "baseUrl" | "blobs" | "caches" | "config" | "db" | "keys" | "reads" | "logGuard">,
  reader: EntryReader,
  entryId: string,
  transparent: boolean,
  profile: Profile = "mmr",
  form: MmrProofForm = "map",
): Promise<Uint8Array> {
  const id = await requireReadableStatement(ctx, reader.caller, eventOfEntry(entryId), reader.log);
  const statement = await getStatement(ctx.db, id);
  if (!statement) throw notFound("entry");
  if (!transparent) return statement;
  const receipt = await entryReceipt(ctx, reader, entryId, profile, form);
  if (!receipt)
    throw new ApiError("conflict", "the entry is not yet sealed; its transparent form is not available yet");
  // The bytes are the database's: another genuine statement in their place would carry this receipt.
  await statementFollowsLog(ctx, id, statement, profile === "rfc9162" ? "receipt_rfc9162" : "receipt");
  return attachReceipts(statement, [receipt]);
}

function statementOf(
  ctx: Pick<Ctx, "baseUrl" | "keys">,
  tenantId: string,
  attributes: Record<string, unknown>,
) {
  return tenancyIssuer(ctx, tenantId).then(async ({ issuer, key }) => {
    try {
      return await signedWith(key, (signer) =>
        eventToStatement(attributes, { issuer, kid: key.kid }, signer),
      );
    } catch (err) {
      if (err instanceof StatementError)
        throw badRequest(
          `this event does not carry the vCon template: ${err.message}`,
          err.missing.map((attribute) => ({ attribute, reason: "missing" })),
        );
      throw err;
    }
  });
}

/**
 * The signed statement of a template-0.3.0 asset event. Transparent: with the event's receipt in
 * 394 and the event's JSON as `grant` lets the caller read it, since the receipt's leaf is the
 * record's and only the record recomputes it.
 */
export async function assetEventStatement(
  ctx: Pick<Ctx, "baseUrl" | "blobs" | "caches" | "db" | "keys" | "reads" | "logGuard">,
  event: AssetEventRow,
  transparent: boolean,
  grant: AccessGrant,
  profile: Profile = "mmr",
  form: MmrProofForm = "map",
): Promise<Uint8Array> {
  const record = assetEventRecord(event);
  return eventStatement(ctx, event.id, event.tenant_id, event.event_attributes, {
    transparent,
    profile,
    form,
    record,
    shown: () => projectEvent(record, grant),
  });
}

/**
 * The signed statement of a template-carrying asset-free event, to those who may read the event
 * (its tenancy's administrators; anyone for a statement in a public log): the statement carries
 * its attributes, and the transparent form the record itself.
 */
export async function freeEventStatement(
  ctx: Pick<Ctx, "baseUrl" | "blobs" | "caches" | "config" | "db" | "keys" | "reads" | "logGuard">,
  p: Principal,
  eventId: string,
  transparent: boolean,
  profile: Profile = "mmr",
  form: MmrProofForm = "map",
): Promise<Uint8Array> {
  await requireReadableRecord(ctx, p, eventId);
  const event = await getFreeEvent(ctx.db, p.tenantId, eventId);
  if (!event) throw notFound("event");
  const record = freeEventRecord(event);
  return eventStatement(ctx, eventId, event.tenant_id, event.attributes, {
    transparent,
    profile,
    form,
    record,
    shown: () => record,
  });
}

/**
 * An event's signed statement (made from its template attributes); when transparent, with its
 * receipt attached and the record as the caller may read it (`shown`; only the record recomputes
 * the leaf). `record`: the event as read, whole, which the statement is made of.
 */
async function eventStatement(
  ctx: Pick<Ctx, "baseUrl" | "blobs" | "caches" | "db" | "keys" | "reads" | "logGuard">,
  eventId: string,
  tenantId: string,
  attributes: Record<string, unknown>,
  how: {
    transparent: boolean;
    profile: Profile;
    form: MmrProofForm;
    record: ApiRecord;
    shown: () => ApiRecord | undefined;
  },
): Promise<Uint8Array> {
  if (!how.transparent) {
    await sealedRowFollowsLog(ctx, eventId, how.record);
    return statementOf(ctx, tenantId, attributes);
  }
  const receipt = await receiptFor(ctx, eventId, how.profile, how.form);
  await recordFollowsLog(ctx, eventId, how.record, how.profile === "rfc9162" ? "receipt_rfc9162" : "receipt");
  return attachReceipts(await statementOf(ctx, tenantId, attributes), [receipt], how.shown());
}

/**
 * A sealed event's statement is given out only while the row it is made of gives the leaf the
 * signed log holds for it, checked on each request (a receipt kept from before a rewrite says
 * nothing of the row read now): a writer of the database cannot have the tenancy's issuer key
 * sign a rewritten record (issues 60, 71). An event not sealed yet has no signed past to follow.
 */
async function sealedRowFollowsLog(
  ctx: Pick<Ctx, "blobs" | "caches" | "reads" | "logGuard">,
  eventId: string,
  record: ApiRecord,
): Promise<void> {
  try {
    await recordFollowsLog(ctx, eventId, record, "receipt");
  } catch (err) {
    if (err instanceof ApiError && err.kind === "conflict") return;
    throw err;
  }
}
