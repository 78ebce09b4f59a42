import type { Principal } from "../../context.js";
import type { Principal4 } from "../../store/records/asset-events.js";

/** principal_accepted of a call: who the service saw, from the verified token. */
export function acceptedPrincipal(p: Principal): Principal4 {
  return { issuer: p.issuer, subject: p.subject, display_name: p.displayName, email: p.email };
}

/** principal of records the service writes itself (NewAsset, policy audit events). */
export function internalPrincipal(baseUrl: string, part: string): Principal4 {
  return { issuer: `${baseUrl}/internal`, subject: part, display_name: "archivist", email: "" };
}

/** principal_declared from a body, each field defaulting to "". */
export function declaredPrincipal(body: Partial<Principal4> | undefined): Principal4 {
  return {
    issuer: body?.issuer ?? "",
    subject: body?.subject ?? "",
    display_name: body?.display_name ?? "",
    email: body?.email ?? "",
  };
}
