import { createLocalJWKSet, type JWTVerifyGetKey } from "jose";
import type { KeyEntry } from "../../keys/key-directory.js";
import type { Keyring } from "../../keys/keyring.js";

/** How long our application tokens live: a retired token key is needed no longer after its retirement. */
export const TOKEN_TTL_SECONDS = 3600;

/**
 * The token keys that may have signed a token still valid: the current one, and each retired
 * one until the last token it signed has expired. Token keys vouch for no record, so a retired
 * one is withdrawn then (docs/keys.md, key retention); a stolen one stops working an hour after
 * its rotation.
 */
export async function liveTokenKeys(keys: Pick<Keyring, "history">, now = Date.now()): Promise<KeyEntry[]> {
  return (await keys.history("token", "RS256")).filter(
    (e) => e.retired_at === null || Date.parse(e.retired_at) + TOKEN_TTL_SECONDS * 1000 > now,
  );
}

const jwkOf = (e: KeyEntry) => ({ ...e.public_jwk, kid: e.kid, alg: "RS256", use: "sig" });

/** The token issuer's JWK Set (`/appidpv1/.well-known/jwks.json`): the signing key first. */
export async function tokenJwks(
  keys: Pick<Keyring, "history">,
): Promise<{ keys: Array<Record<string, unknown>> }> {
  return { keys: (await liveTokenKeys(keys)).map(jwkOf) };
}

/**
 * The last key set made, by the text of its JWK Set: jose imports a JWK once per set object, so a
 * set made anew for each token verified imported the RSA key again each time (issue 59: the
 * import was a third of the service's CPU spent verifying tokens under the conserver's load).
 */
let lastSet: { text: string; set: JWTVerifyGetKey } | undefined;

/** jose's key look-up for our tokens: the live token key the token's header names. */
export async function tokenVerifyKeys(keys: Pick<Keyring, "history">): Promise<JWTVerifyGetKey> {
  const jwks = await tokenJwks(keys);
  const text = JSON.stringify(jwks);
  if (lastSet?.text !== text) lastSet = { text, set: createLocalJWKSet(jwks) };
  return lastSet.set;
}
