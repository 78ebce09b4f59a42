import { createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { ConserverError } from "../errors.js";
import { coseStatementSigner, HttpRegistrar } from "./scitt-http.js";
import type { LinkContext } from "./types.js";

/** The environment variables that configure the scitt link's signer and transparency service. */
export const SCITT_ENV = {
  keyFile: "CONSERVER_SCITT_KEY_FILE",
  kid: "CONSERVER_SCITT_KID",
  issuer: "CONSERVER_SCITT_ISSUER",
  url: "CONSERVER_SCITT_URL",
  clientId: "CONSERVER_SCITT_CLIENT_ID",
  clientSecret: "CONSERVER_SCITT_CLIENT_SECRET",
} as const;

/**
 * The scitt link's context from the environment (an EC P-256 PKCS#8 PEM key file, its kid, the
 * issuer, and the service with client credentials); undefined when none is set. The key stays
 * out of the YAML so configs can be shared without secrets.
 */
export function scittFromEnv(env: Record<string, string | undefined> = process.env): LinkContext["scitt"] {
  const names = Object.values(SCITT_ENV);
  if (!names.some((n) => env[n])) return undefined;
  const missing = names.filter((n) => !env[n]);
  if (missing.length)
    throw new ConserverError("LINK_OPTIONS", `scitt: ${missing.join(", ")} must be set too`, { missing });
  const v = (n: keyof typeof SCITT_ENV) => env[SCITT_ENV[n]] as string;
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(readFileSync(v("keyFile")));
  } catch (err) {
    throw new ConserverError("LINK_OPTIONS", `${SCITT_ENV.keyFile}: ${(err as Error).message}`);
  }
  return {
    signer: coseStatementSigner({ issuer: v("issuer"), kid: v("kid"), key }),
    registrar: new HttpRegistrar({
      backend: {
        url: v("url").replace(/\/+$/, ""),
        clientId: v("clientId"),
        clientSecret: v("clientSecret"),
      },
    }),
  };
}
