import { randomUUID } from "node:crypto";
import type { Ctx, Principal } from "../../context.js";
import { badRequest, notFound } from "../../errors/api-error.js";
import { isoTime } from "../../formats/ids.js";
import {
  deleteInvite,
  getInvite,
  getInviteAnyTenancy,
  type InviteRow,
  insertInvite,
  inviteRows,
} from "../../store/identity/invites.js";
import { admitMember, getMemberByEmail } from "../../store/identity/members.js";
import { adminCollection } from "../admin-collection.js";
import { valuesOf } from "../records/list-query.js";
import { memberOut } from "./members.js";
import { hashGeneratedSecret, newSecret, verifySecret } from "./secrets.js";

// An invitation is valid for a week, as the usual invitation e-mails say.
const INVITE_LIFETIME_MS = 7 * 24 * 3600 * 1000;

/** API shape of an invite (the code is never stored, only its hash). */
export function inviteOut(row: InviteRow) {
  return {
    identity: `invites/${row.id}`,
    email: row.email,
    message: row.message,
    expiry_time: isoTime(row.expiry_time),
  };
}

const invites = adminCollection({
  forbidden: "owner privileges are needed to manage invites",
  item: "invite",
  out: inviteOut,
  get: getInvite,
  delete: deleteInvite,
  list: (db, tenantId, pairs) => inviteRows(db, tenantId, { email: valuesOf(pairs, "email") }),
});

/** Where the invitee posts `{code, display_name}` to accept; no token is needed there. */
function acceptUrl(baseUrl: string, id: string): string {
  return `${baseUrl}/archivist/iam/v1/invites/${id}:accept`;
}

/** Creates a pending invite with a one-time code and sends (or logs) the invitation. */
export async function createInvite(
  ctx: Pick<Ctx, "baseUrl" | "config" | "db" | "invitationMailer" | "log">,
  p: Principal,
  input: { email: string; message?: string | undefined },
) {
  invites.requireAdmin(p);
  const existing = await getMemberByEmail(ctx.db, p.tenantId, input.email);
  if (existing?.active) throw badRequest(`email ${input.email} is already an active member of this tenancy`);
  const code = newSecret();
  const row = await insertInvite(ctx.db, {
    id: randomUUID(),
    tenant_id: p.tenantId,
    email: input.email,
    message: input.message ?? "",
    expiry_time: new Date(Date.now() + INVITE_LIFETIME_MS),
    code_hash: hashGeneratedSecret(code),
  });
  deliverInvitation(ctx, row, code);
  // The inviting administrator sees the code once, like an application secret: it lets an
  // operator without SMTP hand it over, and proves nothing the administrator could not do anyway.
  return { ...inviteOut(row), code };
}

export const readInvite = invites.read;

/** The tenancy's pending invites an administrator lists, filtered by the query. */
export const inviteSource = invites.source;

export const removeInvite = invites.remove;

/**
 * Accepts an invite with its code (no token: the invitee has none yet): the invited e-mail becomes an
 * active member without roles, so without permissions until a policy grants them; the invite is deleted.
 */
export async function acceptInvite(
  ctx: Pick<Ctx, "caches" | "db" | "log">,
  id: string,
  input: { code: string; display_name?: string | undefined },
) {
  const row = await getInviteAnyTenancy(ctx.db, id);
  if (!row) throw notFound("invite");
  if (!(await verifySecret(input.code, row.code_hash, ctx.caches.verifiedSecrets)))
    throw badRequest("code does not match this invite");
  if (new Date(row.expiry_time).getTime() <= Date.now())
    throw badRequest(`invite expired at ${isoTime(row.expiry_time)}; ask for a new one`);
  const member = await ctx.db.transaction(async (tx) => {
    // Deleting first makes the code single-use even when two accepts race.
    if (!(await deleteInvite(tx, row.tenant_id, row.id))) throw notFound("invite");
    return admitMember(tx, {
      id: randomUUID(),
      tenant_id: row.tenant_id,
      email: row.email,
      display_name: input.display_name ?? "",
    });
  });
  ctx.log.info({ tenant: row.tenant_id, member: member.id }, "invite accepted");
  return memberOut(member);
}

/** The invitation text: the message of the inviting administrator, the accept URL and the code. */
function invitationText(row: InviteRow, code: string, baseUrl: string): string {
  return [
    "You have been invited to join a tenancy of the provenance records service.",
    ...(row.message ? ["", row.message] : []),
    "",
    `To accept, POST {"code": "${code}", "display_name": "<your name>"} to`,
    acceptUrl(baseUrl, row.id),
    "",
    `Then sign in with your identity provider as ${row.email}. The invitation expires at ${isoTime(row.expiry_time)}.`,
  ].join("\n");
}

// Sending never delays or fails the create call: an SMTP outage is logged, and the administrator has the code.
function deliverInvitation(
  ctx: Pick<Ctx, "baseUrl" | "config" | "invitationMailer" | "log">,
  row: InviteRow,
  code: string,
): void {
  const where = {
    invite: `invites/${row.id}`,
    email: row.email,
    accept_url: acceptUrl(ctx.baseUrl, row.id),
  };
  if (!ctx.config.smtpUrl) {
    // Without SMTP the log is the only carrier: the code only at debug level, so info logs shipped elsewhere do not hold it.
    ctx.log.info(where, "invitation created (no SMTP configured; the create answer holds the code)");
    ctx.log.debug({ ...where, code }, "invitation code");
    return;
  }
  const m = ctx.invitationMailer.of(ctx.config.smtpUrl, ctx.baseUrl);
  m.transport
    .sendMail({
      from: m.from,
      to: row.email,
      subject: "Invitation to a provenance records tenancy",
      text: invitationText(row, code, ctx.baseUrl),
    })
    .then(() => ctx.log.info(where, "invitation e-mail sent"))
    .catch((err: unknown) => ctx.log.error({ ...where, err }, "invitation e-mail failed"));
}
