import { createHash } from "node:crypto";

/**
 * A key's id: the first 22 characters of its RFC 7638 thumbprint (base64url of SHA-256 over the
 * required members), so the kid is the key's own and every backend names one key the same way.
 */
export function kidOf(jwk: Record<string, unknown>): string {
  const members =
    jwk.kty === "RSA"
      ? { e: jwk.e, kty: jwk.kty, n: jwk.n }
      : jwk.kty === "OKP"
        ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x }
        : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
  return createHash("sha256").update(JSON.stringify(members)).digest("base64url").slice(0, 22);
}
