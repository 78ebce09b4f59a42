import { randomBytes, randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { type RequestInit as UndiciInit, fetch as undiciFetch } from "undici";
import type { Ctx, Principal } from "../../context.js";
import { badRequest, forbidden, notFound } from "../../errors/api-error.js";
import { CodedError } from "../../formats/coded-error.js";
import { isUuid } from "../../formats/ids.js";
import { LIFECYCLE_ATTRIBUTES } from "../../formats/lifecycle/vocabulary.js";
import { openSecret, sealSecret } from "../../keys/secret-box.js";
import { fetchWithin, timeLimit } from "../../net/time-limit.js";
import {
  acknowledgeNotice,
  claimDueNotices,
  type DueNotice,
  deleteProcessor,
  failNotice,
  insertProcessor,
  type NoticeRow,
  noticesOf,
  type ProcessorRow,
  processorsOf,
  processorsToScan,
  queueNotices,
  revocationCandidates,
  settledEventSeq,
} from "../../store/records/revocation-notices.js";
import { adminView } from "../access/access-view.js";
import { acceptedPrincipal } from "../identity/principals.js";
import { createAssetEvent } from "../records/asset-events.js";
import {
  noticeBody,
  noticeHeaders,
  noticeRetryDelayMs,
  revocationOf,
  signingSecret,
} from "./revocation-notice.js";
import { refusedUrl, WebhookAddressRefused, webhookDispatcher } from "./webhook-address.js";

/** The acknowledgement's operation (vocabulary: ours, the draft asks for it and names none). */
const ACKNOWLEDGED = "vcon_revocation_acknowledged";
const SCAN_PAGE = 500;
const SETTLE_MS = 60_000;
const DELIVERIES_PER_TICK = 50;
const TIMEOUT_MS = 10_000;

export interface ProcessorOut {
  identity: string;
  display_name: string;
  url: string;
  created_at: string;
  created_by: string;
}

const processorOut = (r: ProcessorRow): ProcessorOut => ({
  identity: `consent/processors/${r.id}`,
  display_name: r.display_name,
  url: r.url,
  created_at: r.created_at.toISOString(),
  created_by: r.created_by,
});

function checkUrl(url: string, allowPrivate: boolean): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw badRequest("url must be an absolute http(s) URL");
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw badRequest("url must be http(s)");
  if (u.username || u.password) throw badRequest("url must not carry credentials: the notices are signed");
  if (refusedUrl(u, allowPrivate))
    throw badRequest(
      "url must not name a loopback, private, link-local or metadata address (an operator allows them with ARCHIVIST_WEBHOOK_PRIVATE=allow)",
    );
  return u.toString();
}

/**
 * Registers a processor of the tenancy's vCons (administrators): from now on each consent
 * revocation the tenancy's records hold, those before it included, is posted to `url` until it
 * answers 2xx. The signing secret is shown once, here.
 */
export async function registerProcessor(
  ctx: Pick<Ctx, "db" | "keys" | "config">,
  p: Principal,
  input: { display_name: string; url: string },
): Promise<ProcessorOut & { signing_secret: string }> {
  if (!p.isAdmin) throw forbidden("only administrators register processors");
  const secret = signingSecret(randomBytes(32));
  const id = randomUUID();
  const row = await insertProcessor(ctx.db, {
    id,
    tenantId: p.tenantId,
    name: input.display_name.trim(),
    url: checkUrl(input.url, ctx.config.webhookPrivate),
    // The service must keep the secret to sign with it; the database holds it only sealed.
    sealedSecret: sealSecret(await ctx.keys.secretBoxKey(), secret, id),
    by: acceptedPrincipal(p).subject,
  });
  return { ...processorOut(row), signing_secret: secret };
}

export async function listProcessors(ctx: Pick<Ctx, "db">, p: Principal): Promise<ProcessorOut[]> {
  if (!p.isAdmin) throw forbidden("only administrators list processors");
  return (await processorsOf(ctx.db, p.tenantId)).map(processorOut);
}

export async function removeProcessor(ctx: Pick<Ctx, "db">, p: Principal, id: string): Promise<void> {
  if (!p.isAdmin) throw forbidden("only administrators remove processors");
  if (!isUuid(id) || !(await deleteProcessor(ctx.db, p.tenantId, id.toLowerCase())))
    throw notFound(`consent/processors/${id}`);
}

export interface NoticeOut {
  identity: string;
  processor: string;
  processor_name: string;
  vcon: string;
  purposes: string[];
  revocation: string;
  revoked_at: string;
  state: "pending" | "acknowledged" | "given_up";
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  acknowledged_at: string | null;
  acknowledgement: string | null;
}

const noticeOut = (n: NoticeRow): NoticeOut => ({
  identity: `consent/notices/${n.id}`,
  processor: `consent/processors/${n.processor_id}`,
  processor_name: n.processor_name,
  vcon: n.vcon,
  purposes: n.purposes,
  revocation: n.revocation,
  revoked_at: new Date(n.revoked_at).toISOString(),
  state: n.state,
  attempts: n.attempts,
  next_attempt_at: n.state === "pending" ? n.next_attempt_at.toISOString() : null,
  last_error: n.last_error,
  acknowledged_at: n.acknowledged_at?.toISOString() ?? null,
  acknowledgement: n.acknowledgement,
});

/** The tenancy's revocation notices (administrators), of one vCon or all, and those not acknowledged. */
export async function listNotices(
  ctx: Pick<Ctx, "db">,
  p: Principal,
  filter: { vcon?: string | undefined; unacknowledged?: boolean | undefined },
): Promise<{ notices: NoticeOut[]; unacknowledged: NoticeOut[] }> {
  if (!p.isAdmin) throw forbidden("only administrators read revocation notices");
  if (filter.vcon !== undefined && !/^vcon:\/\/[0-9a-f-]{36}$/i.test(filter.vcon))
    throw badRequest("vcon must be vcon://<uuid>");
  const notices = (await noticesOf(ctx.db, p.tenantId, { ...filter, vcon: filter.vcon?.toLowerCase() })).map(
    noticeOut,
  );
  return { notices, unacknowledged: notices.filter((n) => n.state !== "acknowledged") };
}

/** Who the notifier records an acknowledgement as: the service, in the tenancy, for the processor. */
function notifier(tenantId: string): Principal {
  return {
    tenantId,
    kind: "application",
    id: "revocation-notifier",
    issuer: "vcon-archivist",
    subject: "revocation-notifier",
    displayName: "revocation notifier",
    email: "",
    claims: {},
    roles: [],
    isAdmin: true,
  };
}

/**
 * Reads each processor's tenancy's asset events after where it last read, and queues a notice
 * for each consent revocation among them (the vocabulary decides what is one). An event's
 * sequence number is drawn before its transaction commits, so a later one can be seen first: the
 * scan's mark stays `SETTLE_MS` behind what was accepted, and the last minute is read again each
 * time (a notice already queued is not queued twice).
 */
export async function scanRevocations(ctx: Pick<Ctx, "db">): Promise<number> {
  let queued = 0;
  for (const proc of await processorsToScan(ctx.db)) {
    const settled = await settledEventSeq(ctx.db, proc.tenant_id, new Date(Date.now() - SETTLE_MS));
    let after = proc.scanned_seq;
    for (;;) {
      const rows = await revocationCandidates(ctx.db, proc.tenant_id, after, SCAN_PAGE);
      const notices = rows.flatMap((r) => {
        const revoked = revocationOf({ event_attributes: r.event_attributes });
        if (!revoked) return [];
        const revocation = `assets/${r.asset_id}/events/${r.id}`;
        return [{ id: randomUUID(), revocation, revokedAt: new Date(r.timestamp_accepted), ...revoked }];
      });
      const last = rows.at(-1)?.seq ?? after;
      const mark = BigInt(last) < BigInt(settled) ? last : settled;
      queued += await queueNotices(ctx.db, proc, notices, rows.length < SCAN_PAGE ? settled : mark);
      if (rows.length < SCAN_PAGE) break;
      after = last;
    }
  }
  return queued;
}

/**
 * A notice not acknowledged, said the same way whatever happened (an answer other than 2xx, a
 * refused address, no connection, no answer in time): the notice's error is read by the
 * tenancy's administrators, and must not tell them which ports of the service's network are
 * open. The operator's log has `detail`.
 */
class NotAcknowledged extends CodedError<"NOTICE_NOT_ACKNOWLEDGED"> {
  readonly code = "NOTICE_NOT_ACKNOWLEDGED";
  readonly detail: string;
  constructor(url: string, cause: unknown) {
    super(`${url} did not acknowledge the notice (no 2xx answer)`);
    this.detail = cause instanceof Error ? cause.message : String(cause);
  }
}

async function deliverOne(
  ctx: Pick<Ctx, "db" | "caches" | "writePath" | "baseUrl" | "keys" | "config">,
  n: DueNotice,
): Promise<void> {
  const secret = openSecret(await ctx.keys.secretBoxKey(), n.sealed_secret, n.processor_id);
  const body = noticeBody({
    id: n.id,
    revocation: n.revocation,
    vcon: n.vcon,
    purposes: n.purposes,
    revokedAt: new Date(n.revoked_at).toISOString(),
    service: ctx.baseUrl,
  });
  const allow = ctx.config.webhookPrivate;
  const dispatcher = webhookDispatcher(allow);
  const post = (url: string, init: RequestInit & { signal: AbortSignal }): Promise<Response> =>
    dispatcher
      ? (undiciFetch(url, { ...(init as UndiciInit), dispatcher }) as unknown as Promise<Response>)
      : fetch(url, init);
  const limit = timeLimit(TIMEOUT_MS);
  try {
    if (refusedUrl(new URL(n.url), allow)) throw new WebhookAddressRefused();
    const res = await fetchWithin(
      post,
      n.url,
      {
        method: "POST",
        headers: noticeHeaders(secret, n.id, Math.floor(Date.now() / 1000), body),
        body,
        // The notice goes to the URL registered, never where a 3xx points.
        redirect: "manual" as const,
      },
      limit,
    );
    // Only the status is read: the receiver's body is not ours to hold.
    await res.body?.cancel().catch(() => undefined);
    if (res.status < 200 || res.status > 299) throw new Error(`answered ${res.status}`);
  } catch (err) {
    throw new NotAcknowledged(n.url, err);
  } finally {
    limit.clear();
  }
  const asset = /^assets\/([^/]+)\/events\//.exec(n.revocation)?.[1] ?? "";
  const p = notifier(n.tenant_id);
  const ack = await createAssetEvent(ctx, p, adminView(n.tenant_id), asset, {
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: {
      arc_display_type: ACKNOWLEDGED,
      vcon_operation: ACKNOWLEDGED,
      subject: n.vcon,
      ...(n.purposes.length ? { [LIFECYCLE_ATTRIBUTES.purpose]: n.purposes } : {}),
      [LIFECYCLE_ATTRIBUTES.acknowledgedRevocation]: n.revocation,
      [LIFECYCLE_ATTRIBUTES.acknowledgingProcessor]: n.processor_name,
      [LIFECYCLE_ATTRIBUTES.acknowledgingProcessorId]: `consent/processors/${n.processor_id}`,
      revocation_notice: `consent/notices/${n.id}`,
    },
  });
  await acknowledgeNotice(ctx.db, n.id, ack.identity);
}

/**
 * Posts each due notice; a 2xx answer is the processor's acknowledgement, recorded as a
 * `vcon_revocation_acknowledged` event beside the revocation. Any other answer, or none, is
 * tried again later (`noticeRetryDelayMs`), and given up after the last attempt.
 */
export async function deliverNotices(
  ctx: Pick<Ctx, "db" | "caches" | "writePath" | "baseUrl" | "keys" | "config">,
  log: Logger,
  retryBaseMs?: number,
): Promise<number> {
  // Posted at once, each leased for longer than its attempt may take (the post, then the
  // acknowledgement's write): one slow processor holds up no other.
  const due = await claimDueNotices(ctx.db, DELIVERIES_PER_TICK, 6 * TIMEOUT_MS);
  const done = await Promise.all(
    due.map(async (n) => {
      try {
        await deliverOne(ctx, n);
        return true;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const delay = noticeRetryDelayMs(n.attempts + 1, retryBaseMs);
        log.warn(
          {
            notice: n.id,
            processor: n.processor_name,
            attempts: n.attempts + 1,
            err: err instanceof NotAcknowledged ? `${message}: ${err.detail}` : message,
          },
          "revocation notice not acknowledged",
        );
        await failNotice(ctx.db, n.id, message, delay);
        return false;
      }
    }),
  );
  const delivered = done.filter(Boolean).length;
  return delivered;
}
