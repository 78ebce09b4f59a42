import type { FastifyRequest } from "fastify";
import { nodePublicKeyFromJwk } from "../core/node/crypto.js";
import { PublicApi } from "../lookup/public-api.js";

/**
 * The API as the caller sees it, read in-process: what a route gathers this way (an evidence
 * bundle, a vCon's consent) goes through the same routes with the caller's own token, so it
 * holds exactly what the caller may read, and its requests count against the caller's rate limit.
 */
export function callersApi(req: FastifyRequest, baseUrl: string): PublicApi {
  const authorization = req.headers.authorization ?? "";
  const fetch = async (url: string) => {
    // Each step waits its turn behind what else the service has to do: a long gathering is many
    // short steps between other requests, never one block of work ahead of them.
    await new Promise((resolve) => setImmediate(resolve));
    const u = new URL(url);
    const res = await req.server.inject({
      method: "GET",
      url: `${u.pathname}${u.search}`,
      headers: { authorization },
    });
    return new Response(new Uint8Array(res.rawPayload), { status: res.statusCode });
  };
  // node:crypto's keys whatever the gatherer checks with them: the portable ones (@noble, what a
  // browser has) took ~40 % of a 1,001-record bundle's gathering when it checked each receipt.
  return new PublicApi(baseUrl, { fetch, makeKey: nodePublicKeyFromJwk });
}
