import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";

type MintAlg = "ES256" | "RS256";

interface MintClaims {
  email?: string;
  sub?: string;
  aud?: string;
  /** Seconds from now until `exp` (negative for an expired token); default one hour. */
  expiresIn?: number;
  [claim: string]: unknown;
}

/** A local OpenID provider for tests: a JWKS over HTTP and ID tokens minted on demand. */
export interface OidcIssuer {
  issuer: string;
  jwksUrl: string;
  mint(claims: MintClaims, alg?: MintAlg): Promise<string>;
  close(): Promise<void>;
}

/** Starts the issuer on a free port of 127.0.0.1 with one ES256 and one RS256 signing key. */
export async function startOidcIssuer(): Promise<OidcIssuer> {
  const keys = {
    ES256: { ...(await generateKeyPair("ES256")), kid: randomUUID() },
    RS256: { ...(await generateKeyPair("RS256")), kid: randomUUID() },
  };
  const jwks: JWK[] = [];
  for (const [alg, k] of Object.entries(keys))
    jwks.push({ ...(await exportJWK(k.publicKey)), kid: k.kid, alg, use: "sig" });
  let issuer = "";
  const server = createServer((req, res) => {
    const body =
      req.url === "/jwks"
        ? { keys: jwks }
        : req.url === "/.well-known/openid-configuration"
          ? { issuer, jwks_uri: `${issuer}/jwks` }
          : undefined;
    res.writeHead(body ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(body ?? { error: "not found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    async mint(claims, alg = "ES256") {
      const { expiresIn = 3600, sub, aud, ...rest } = claims;
      const now = Math.floor(Date.now() / 1000);
      const key = keys[alg];
      return new SignJWT(rest)
        .setProtectedHeader({ alg, kid: key.kid, typ: "JWT" })
        .setIssuer(issuer)
        .setSubject(sub ?? randomUUID())
        .setAudience(aud ?? "archivist")
        .setIssuedAt(now)
        .setExpirationTime(now + expiresIn)
        .sign(key.privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
