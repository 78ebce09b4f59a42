import { z } from "zod";
import { issueToken } from "../../services/tokens.js";
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
    summary: "Issue an access token (client credentials)",
    body: tokenForm,
    response: tokenResponse,
    handler: async ({ body, res }) => {
      res.header("cache-control", "no-store");
      return issueToken(d.ctx, body);
    },
  });
}
