import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * Whether the request asks for `Prefer: return=minimal` (RFC 7240 §4.2): the caller wants only
 * what names the records it made, not the records. Preferences are comma-separated, each a
 * token with an optional value (quoted or not) and parameters after `;`; names are
 * case-insensitive, and a preference the server does not know is ignored.
 */
export function prefersMinimal(req: FastifyRequest): boolean {
  const header = req.headers.prefer;
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  for (const value of values)
    for (const preference of value.split(",")) {
      const [head = ""] = preference.split(";");
      const eq = head.indexOf("=");
      if (eq < 0) continue;
      const name = head.slice(0, eq).trim().toLowerCase();
      const v = head
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .toLowerCase();
      if (name === "return" && v === "minimal") return true;
    }
  return false;
}

/** Says the answer honours `return=minimal` (RFC 7240 §3), and that it varies with `Prefer`. */
export function appliedMinimal(res: FastifyReply): void {
  res.header("preference-applied", "return=minimal");
  res.header("vary", "Prefer");
}
