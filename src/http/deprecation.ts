import type { FastifyReply } from "fastify";

/** When the endpoints SCRAPI -11 calls legacy were deprecated here (RFC 9745: `@` and Unix seconds). */
const DEPRECATED_AT = Math.floor(Date.UTC(2026, 10, 25) / 1000);

/**
 * A successor's path, made of decoded path parameters, as a URI reference a header can carry:
 * each byte of its UTF-8 outside printable ASCII, and `%`, `<` and `>`, percent-encoded. Node
 * refuses a header holding other characters, and a request's own id would otherwise fail its reply.
 */
function uriReference(path: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(path))
    out +=
      b > 0x20 && b < 0x7f && b !== 0x25 && b !== 0x3c && b !== 0x3e
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}

/**
 * Marks a reply from an endpoint kept for today's clients but superseded (RFC 9745 `Deprecation`,
 * RFC 8288 `Link` to the successor, given with its path parameters decoded): it keeps answering as before.
 */
export function markDeprecated(res: FastifyReply, successor: string): FastifyReply {
  return res
    .header("deprecation", `@${DEPRECATED_AT}`)
    .header("link", `<${uriReference(successor)}>; rel="successor-version"`);
}
