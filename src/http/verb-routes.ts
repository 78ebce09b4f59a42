import type { z } from "zod";
import type { Principal } from "../context.js";
import type { HttpDeps } from "./deps.js";
import type { Auth, RouteSpec } from "./route.js";
import { emptyBody } from "./schemas/common.js";

/**
 * A route whose use case changes who may do what (roles, activation, administrators, an
 * application removed): the authenticator forgets what it has cached once the use case has run,
 * so the change holds from the next request on.
 */
export function changingAccess<B extends z.ZodType, Q extends z.ZodType, A extends Auth>(
  d: HttpDeps,
  spec: RouteSpec<B, Q, A>,
): RouteSpec<B, Q, A> {
  return {
    ...spec,
    handler: async (call) => {
      const out = await spec.handler(call);
      d.auth.invalidate();
      return out;
    },
  };
}

/** A verb on one item, as the interface writes them: `{item}:verb`, an empty body, a token. */
export interface VerbSpec {
  /** The item's path (`/archivist/iam/v1/members/{member_uuid}`); the route is `${item}:${verb}`. */
  item: string;
  verb: string;
  group: string;
  summary: string;
  response: z.ZodType;
  /** The item's id from the path (400 for a malformed one). */
  id: (params: Record<string, string>) => string;
  run: (p: Principal, id: string) => Promise<unknown>;
  /** The verb changes who may do what (`changingAccess`). */
  changesAccess?: boolean;
}

/** POST `${item}:${verb}` running the use case on the caller and the item. */
export function verbRoute(d: HttpDeps, spec: VerbSpec): RouteSpec<typeof emptyBody, z.ZodType, "token"> {
  const route: RouteSpec<typeof emptyBody, z.ZodType, "token"> = {
    method: "post",
    path: `${spec.item}:${spec.verb}`,
    group: spec.group,
    auth: "token",
    summary: spec.summary,
    body: emptyBody,
    response: spec.response,
    handler: ({ principal, params }) => spec.run(principal, spec.id(params)),
  };
  return spec.changesAccess ? changingAccess(d, route) : route;
}
