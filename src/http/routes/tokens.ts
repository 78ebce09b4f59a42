import { z } from "zod";
import { guardedIssueToken } from "../../services/identity/tokens.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";

const tokenForm = z.object({
  grant_type: z.string().optional(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
});

const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number(),
});

/** The OIDC client-credentials token endpoint (form body, no auth header). */
export function tokenRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "post",
    path: "/archivist/iam/v1/appidp/token",
    group: "appidpv1",
    auth: "public",
    writes: false,
    summary: "Issue an access token (client credentials)",
    // OIDC (RFC 6749 §4.4.2) posts the grant as a form; a JSON body is refused by name.
    contentTypes: ["application/x-www-form-urlencoded"],
    body: tokenForm,
    response: tokenResponse,
    handler: async ({ body, req, res }) => {
      res.header("cache-control", "no-store");
      return guardedIssueToken(d.ctx, body, req.ip);
    },
  });
}
