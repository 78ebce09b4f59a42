import type { FastifyReply } from "fastify";

/** When the endpoints SCRAPI -11 calls legacy were deprecated here (RFC 9745: `@` and Unix seconds). */
const DEPRECATED_AT = Math.floor(Date.UTC(2026, 10, 25) / 1000);

/**
 * Marks a reply from an endpoint kept for today's clients but superseded (RFC 9745 `Deprecation`,
 * RFC 8288 `Link` to the successor): it keeps answering as before.
 */
export function markDeprecated(res: FastifyReply, successor: string): FastifyReply {
  return res
    .header("deprecation", `@${DEPRECATED_AT}`)
    .header("link", `<${successor}>; rel="successor-version"`);
}
