import { pathUuid } from "../../errors/path-uuid.js";
import {
  acceptInvite,
  createInvite,
  inviteOut,
  inviteSource,
  readInvite,
  removeInvite,
} from "../../services/identity/invites.js";
import { crudRoutes } from "../crud-routes.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import {
  invite,
  inviteAccept,
  inviteCreate,
  inviteCreated,
  inviteList,
  inviteListOut,
} from "../schemas/invites.js";
import { member } from "../schemas/members.js";
import { changingAccess } from "../verb-routes.js";

// The reference serves invites under /archivist/v1; the usage examples under /archivist/iam/v1.
const BASES = ["/archivist/v1/invites", "/archivist/iam/v1/invites"];
const group = "invitesv1";

function inviteRoutesAt(t: RouteTable, d: HttpDeps, base: string): void {
  crudRoutes(t, d, {
    base,
    group,
    noun: "invite",
    list: {
      summary: "List pending invites",
      query: inviteList,
      response: inviteListOut,
      collection: "invites",
      rows: ({ principal }, q) => inviteSource(d.ctx, principal, q),
      shape: inviteOut,
    },
    create: {
      summary: "Invite someone by e-mail (the answer holds the one-time code, shown once)",
      body: inviteCreate,
      response: inviteCreated,
      run: (p, body) => createInvite(d.ctx, p, body),
    },
    read: { summary: "Get an invite", response: invite, run: (p, id) => readInvite(d.ctx, p, id) },
    remove: { summary: "Withdraw an invite", run: (p, id) => removeInvite(d.ctx, p, id) },
  });
  t.add(
    changingAccess(d, {
      method: "post",
      path: `${base}/{uuid}:accept`,
      group,
      auth: "public",
      summary: "Accept an invite with its code (no token): the e-mail becomes a member without roles",
      body: inviteAccept,
      response: member,
      handler: ({ params, body }) => acceptInvite(d.ctx, pathUuid(params.uuid, "invite"), body),
    }),
  );
}

/** Invites under both path forms, and their acceptance. */
export function inviteRoutes(t: RouteTable, d: HttpDeps): void {
  for (const base of BASES) inviteRoutesAt(t, d, base);
}
