import type { Ctx, Principal } from "../../context.js";
import { badRequest } from "../../errors/api-error.js";
import {
  type MemberRow,
  type MemberState,
  type MembershipRow,
  memberRows,
  membershipRows,
  updateMember,
} from "../../store/identity/members.js";
import { emptySource, type RowSource } from "../../store/query/row-source.js";
import { adminCollection, identified } from "../admin-collection.js";
import { scalar } from "../records/list-query.js";

/** The only role members can hold; an empty list means a basic user. */
const OWNER_ROLE = "OWNER";

// A Map, not an object: `member_state=constructor` must not find Object.prototype's.
const STATES = new Map<string, MemberState>([
  ["MEMBER_STATE_UNSPECIFIED", "active"],
  ["MEMBER_STATE_ACTIVE", "active"],
  ["MEMBER_STATE_INACTIVE", "inactive"],
  ["MEMBER_STATE_BOTH", "both"],
]);

/** API shape of a member. */
export function memberOut(row: MemberRow) {
  return identified("members", row, ["display_name", "email", "active", "roles"]);
}

/** `member_state` query value → which members to list (default: active only); 400 for unknown values. */
function memberStateOf(raw: string | undefined): MemberState {
  if (raw === undefined || raw === "") return "active";
  const state = STATES.get(raw);
  if (!state) throw badRequest(`member_state must be one of ${[...STATES.keys()].join(", ")}`);
  return state;
}

/** Roles as sent, checked and upper-cased; only OWNER is known. */
function validRoles(roles: string[]): string[] {
  const out = new Set<string>();
  roles.forEach((r, i) => {
    if (r.toUpperCase() !== OWNER_ROLE)
      throw badRequest(`roles[${i}]: unknown role "${r}" (only OWNER exists)`);
    out.add(OWNER_ROLE);
  });
  return [...out];
}

const members = adminCollection({
  forbidden: "owner privileges are needed to manage members",
  item: "member",
  out: memberOut,
  list: (db, tenantId, pairs) => memberRows(db, tenantId, memberStateOf(scalar(pairs, "member_state"))),
});

/** The tenancy's members an administrator lists (active only unless member_state says otherwise). */
export const memberSource = members.source;

/** PATCH: the roles list sent replaces the member's roles (an empty list demotes to basic user). */
export async function patchMemberRoles(
  ctx: Pick<Ctx, "db">,
  p: Principal,
  id: string,
  roles: string[] | undefined,
) {
  return memberOut(
    await members.write(ctx, p, (db, tenantId) =>
      updateMember(db, tenantId, id, roles ? { roles: validRoles(roles) } : {}),
    ),
  );
}

/** Activates a member with basic rights only: OWNER must be granted again. */
export async function activateMember(ctx: Pick<Ctx, "db">, p: Principal, id: string) {
  return setActive(ctx, p, id, true);
}

/** Deactivates a member and strips its roles; its tokens are refused from then on. */
export async function deactivateMember(ctx: Pick<Ctx, "db">, p: Principal, id: string) {
  return setActive(ctx, p, id, false);
}

/** Either way the roles go: a member (re)activated starts as a basic user. */
async function setActive(ctx: Pick<Ctx, "db">, p: Principal, id: string, active: boolean) {
  const row = await members.write(ctx, p, (db, tenantId) =>
    updateMember(db, tenantId, id, { active, roles: [] }),
  );
  return memberOut(row);
}

/** API shape of a membership of the calling user. */
export function membershipOut(row: MembershipRow) {
  return {
    display_name: row.tenancy_name,
    identity: `members/${row.id}`,
    tenant_id: `tenancies/${row.tenant_id}`,
  };
}

/** The caller's active memberships in every tenancy trusting its issuer; none for an application. */
export function membershipSource(ctx: Pick<Ctx, "db">, p: Principal): RowSource<MembershipRow> {
  if (p.kind !== "member" || !p.email) return emptySource();
  return membershipRows(ctx.db, p.issuer, p.email);
}
