import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { kidOf } from "../../src/keys/kid.js";
import type { LegacyKeyRow as StoredLegacyKeyRow } from "../../src/store/identity/legacy-keys.js";

/** A row of `signing_keys` as the tests write it (its `created_at` left to the table's default). */
export type LegacyKeyRow = Omit<StoredLegacyKeyRow, "created_at">;

/**
 * A key pair as an earlier version's keyring stored it (PKCS#8 PEM, the public JWK with alg and
 * use), with its private key to sign with: a genuine upgrade's, or a database writer's own.
 */
export function legacyKeyPair(
  purpose: string,
  alg: "ES256" | "RS256" | "Ed25519",
): LegacyKeyRow & { privateKey: KeyObject } {
  const pair =
    alg === "RS256"
      ? generateKeyPairSync("rsa", { modulusLength: 2048 })
      : alg === "Ed25519"
        ? generateKeyPairSync("ed25519")
        : generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = pair.publicKey.export({ format: "jwk" }) as Record<string, unknown>;
  return {
    purpose,
    alg,
    kid: kidOf(jwk),
    privateKey: pair.privateKey,
    private_pkcs8: pair.privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    public_jwk: { ...jwk, alg, use: "sig" },
  };
}
