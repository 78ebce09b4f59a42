import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { mlDsa44Keys } from "../core/log/ml-dsa-sign.js";
import { vrfPublicKey } from "../formats/vrf/index.js";
import type { KeyBackend, KeySigner, MadeKey, SigningAlg } from "./key-backend.js";
import type { KeyDirectory } from "./key-directory.js";
import { kidOf } from "./kid.js";

/** The backend name of keys whose private half is a file of the key directory. */
export const FILE_HOLDER = "key-directory";

/**
 * The public JWK recorded for a 32-byte secret held as a file: ML-DSA-44's public key derives
 * from its seed (FIPS 204 keygen is deterministic), the index's VRF key's from its RFC 8032 secret;
 * an HMAC or AES key has no public half.
 */
export function secretPublicJwk(
  alg: "ML-DSA-44" | "HS256" | "A256GCM" | "ECVRF",
  secret: Uint8Array,
): Record<string, unknown> {
  if (alg === "ECVRF")
    return {
      kty: "OKP",
      crv: "Ed25519",
      alg: "ECVRF-EDWARDS25519-SHA512-TAI",
      x: Buffer.from(vrfPublicKey(secret)).toString("base64url"),
    };
  if (alg !== "ML-DSA-44") return {};
  return { kty: "AKP", alg, pub: Buffer.from(mlDsa44Keys(secret).publicKey).toString("base64url") };
}

/** A node:crypto signature in the algorithm's wire form. */
function nodeSign(alg: SigningAlg, privateKey: KeyObject, data: Uint8Array): Uint8Array {
  const sig =
    alg === "ES256"
      ? sign("sha256", data, { key: privateKey, dsaEncoding: "ieee-p1363" })
      : alg === "RS256"
        ? sign("sha256", data, privateKey)
        : sign(null, data, privateKey);
  return new Uint8Array(sig.buffer, sig.byteOffset, sig.byteLength);
}

/** A fresh node:crypto key pair of `alg` (ES256K and X25519 too: the identity keys). */
function freshPair(alg: string): { privateKey: KeyObject; publicKey: KeyObject } {
  switch (alg) {
    case "RS256":
      return generateKeyPairSync("rsa", { modulusLength: 2048 });
    case "ES256K":
      return generateKeyPairSync("ec", { namedCurve: "secp256k1" });
    case "X25519":
      return generateKeyPairSync("x25519");
    case "Ed25519":
      return generateKeyPairSync("ed25519");
    default:
      return generateKeyPairSync("ec", { namedCurve: "P-256" });
  }
}

/**
 * The default backend: each private key a PKCS#8 PEM file (mode 0600) in its purpose's folder of
 * the key directory, named by its kid; signing is node:crypto's, synchronous.
 */
export class FileKeys implements KeyBackend {
  readonly name = FILE_HOLDER;

  constructor(private readonly dir: KeyDirectory) {}

  holds(alg: string): alg is SigningAlg {
    return alg === "ES256" || alg === "RS256" || alg === "Ed25519";
  }

  /** Makes and writes a key pair of any node:crypto kind (the identity keys as well as the signing ones). */
  async generateAny(purpose: string, alg: string): Promise<MadeKey & { kid: string }> {
    const pair = freshPair(alg);
    const publicJwk = pair.publicKey.export({ format: "jwk" }) as Record<string, unknown>;
    const kid = kidOf(publicJwk);
    const ref = `${kid}.pem`;
    await this.dir.writePrivate(
      purpose,
      ref,
      pair.privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    );
    return { publicJwk, ref, kid };
  }

  generate(purpose: string, alg: SigningAlg): Promise<MadeKey> {
    return this.generateAny(purpose, alg);
  }

  /** The private KeyObject of a file key (only this backend's keys have one). */
  async privateKey(purpose: string, ref: string): Promise<KeyObject> {
    return createPrivateKey(await this.dir.readPrivate(purpose, ref));
  }

  async signer(purpose: string, ref: string, alg: SigningAlg): Promise<KeySigner> {
    const key = await this.privateKey(purpose, ref);
    // node:crypto reads the data during the call only: the COSE builder may pass its scratch buffer.
    const signSync = Object.assign((data: Uint8Array) => nodeSign(alg, key, data), {
      readsDuringCallOnly: true as const,
    });
    return { signSync, sign: async (data) => signSync(data) };
  }

  async discard(purpose: string, ref: string): Promise<void> {
    await this.dir.removePrivate(purpose, ref);
  }

  async close(): Promise<void> {}
}
