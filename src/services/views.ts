import type { Ctx, Principal } from "../context.js";
import { type AccessView, adminView } from "./access-view.js";

/** Nothing visible: a new identity before any policy grants it something. */
const nothing: AccessView = {
  restrictAssets: (w) => {
    w.and("false");
  },
  restrictEvents: (w) => {
    w.and("false");
  },
  whole: true,
  grant: () => undefined,
};

/** The caller's view of the records: administrators see their tenancy whole; others what policies grant. */
export async function viewFor(_ctx: Ctx, p: Principal): Promise<AccessView> {
  if (p.isAdmin) return adminView(p.tenantId);
  return nothing;
}

/** Whether the caller may write anything at all (uploads need it): administrators, or a policy that grants it writes. */
export async function mayWrite(_ctx: Ctx, p: Principal): Promise<boolean> {
  return p.isAdmin;
}
