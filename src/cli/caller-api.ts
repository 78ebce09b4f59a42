import { TokenSource } from "../client/token-source.js";
import { nodePublicKeyFromJwk } from "../core/node/crypto.js";
import { PublicApi } from "../lookup/public-api.js";

/** The credentials flags of the CLI's client commands (each also read from the environment). */
export interface CredentialFlags {
  token?: string;
  clientId?: string;
  clientSecret?: string;
}

// What answers at --url cannot make the CLI wait forever.
const ANSWER_TIMEOUT_MS = 10 * 60_000;

/**
 * The look-up client with the caller's credentials: a token given as is, or client credentials
 * for a token source (asked once now, so a refusal is named before anything is fetched).
 * `fail` makes the command's own error from a message.
 */
export async function callerApi(
  base: string,
  v: CredentialFlags,
  maxBytes: number,
  fail: (message: string) => Error,
): Promise<PublicApi> {
  const options = { maxBytes, timeoutMs: ANSWER_TIMEOUT_MS, makeKey: nodePublicKeyFromJwk };
  const token = v.token ?? process.env.ARCHIVIST_TOKEN;
  if (token) return new PublicApi(base, { ...options, tokens: token });
  const clientId = v.clientId ?? process.env.ARCHIVIST_CLIENT_ID;
  const clientSecret = v.clientSecret ?? process.env.ARCHIVIST_CLIENT_SECRET;
  if (!clientId || !clientSecret)
    throw fail(
      "give credentials: --client-id and --client-secret (or ARCHIVIST_CLIENT_ID / ARCHIVIST_CLIENT_SECRET), or --token",
    );
  const tokens = new TokenSource({ url: base, clientId, clientSecret });
  try {
    await tokens.get();
  } catch (err) {
    throw fail(`the token request: ${(err as Error).message}`);
  }
  return new PublicApi(base, { ...options, tokens });
}
