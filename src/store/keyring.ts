import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import type { Db } from "./db.js";
import { loadOrCreateKey, type StoredKey } from "./keys.js";

/** A usable key: the private KeyObject, the public one and its published id. */
export interface LoadedKey {
  kid: string;
  alg: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: Record<string, unknown>;
}

function kidOf(jwk: Record<string, unknown>): string {
  // RFC 7638 thumbprint members only, so the kid is stable for the key itself.
  const members =
    jwk.kty === "RSA"
      ? { e: jwk.e, kty: jwk.kty, n: jwk.n }
      : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
  return createHash("sha256").update(JSON.stringify(members)).digest("base64url").slice(0, 22);
}

function fresh(purpose: string, alg: string): StoredKey {
  const pair =
    alg === "RS256"
      ? generateKeyPairSync("rsa", { modulusLength: 2048 })
      : alg === "ES256K"
        ? generateKeyPairSync("ec", { namedCurve: "secp256k1" })
        : alg === "X25519"
          ? generateKeyPairSync("x25519")
          : alg === "Ed25519"
            ? generateKeyPairSync("ed25519")
            : generateKeyPairSync("ec", { namedCurve: "P-256" });
  const publicJwk = pair.publicKey.export({ format: "jwk" }) as Record<string, unknown>;
  return {
    purpose,
    alg,
    kid: kidOf(publicJwk),
    privatePkcs8: pair.privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    publicJwk: { ...publicJwk, alg, use: "sig" },
  };
}

function load(k: StoredKey): LoadedKey {
  const privateKey = createPrivateKey(k.privatePkcs8);
  return {
    kid: k.kid,
    alg: k.alg,
    privateKey,
    publicKey: createPublicKey(privateKey),
    publicJwk: { ...k.publicJwk, kid: k.kid },
  };
}

/** Keys are generated once, kept in the store, and cached here for the process's life. */
export class Keyring {
  private readonly cache = new Map<string, Promise<LoadedKey>>();
  private secret: Promise<Uint8Array> | undefined;

  constructor(private readonly db: Db) {}

  /** The key for `purpose` (e.g. `token`, `seal`, `issuer:<tenant>`), created on first use. */
  get(purpose: string, alg: "RS256" | "ES256" | "ES256K" | "X25519" | "Ed25519"): Promise<LoadedKey> {
    let p = this.cache.get(purpose);
    if (!p) {
      p = loadOrCreateKey(this.db, purpose, () => fresh(purpose, alg)).then(load);
      p.catch(() => this.cache.delete(purpose));
      this.cache.set(purpose, p);
    }
    return p;
  }

  /** A 32-byte server secret (page-token MAC key), stored like a key so restarts keep it. */
  hmacSecret(): Promise<Uint8Array> {
    this.secret ??= loadOrCreateKey(this.db, "page-token", () => ({
      purpose: "page-token",
      alg: "HS256",
      kid: `hs-${randomBytes(6).toString("hex")}`,
      privatePkcs8: randomBytes(32).toString("base64"),
      publicJwk: {},
    })).then((k) => new Uint8Array(Buffer.from(k.privatePkcs8, "base64")));
    return this.secret;
  }
}
