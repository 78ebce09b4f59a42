import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import type { Signer } from "../core/cose/index.js";
import type { PublicKey } from "../core/crypto/public-key.js";
import { nodePublicKey, nodeSigner } from "../core/node/crypto.js";
import type { Db } from "./db.js";
import { loadOrCreateKey, type StoredKey } from "./keys.js";
import { refuseInsideTransaction } from "./transaction-scope.js";

/** A usable key: the private KeyObject, the public one and its published id. */
export interface LoadedKey {
  kid: string;
  alg: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: Record<string, unknown>;
}

/**
 * An ES256 key with its COSE signer and its verifying key, made once when the key is loaded: the
 * receipts and statements signed or checked with the key reuse them.
 */
export interface Es256Key extends LoadedKey {
  signer: Signer;
  verifier: PublicKey;
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

function load(k: StoredKey): LoadedKey | Es256Key {
  const privateKey = createPrivateKey(k.privatePkcs8);
  const loaded = {
    kid: k.kid,
    alg: k.alg,
    privateKey,
    publicKey: createPublicKey(privateKey),
    publicJwk: { ...k.publicJwk, kid: k.kid },
  };
  return k.alg === "ES256"
    ? { ...loaded, signer: nodeSigner(privateKey), verifier: nodePublicKey(loaded.publicKey) }
    : loaded;
}

type Alg = "RS256" | "ES256" | "ES256K" | "X25519" | "Ed25519";

/**
 * Keys are generated once, kept in the store, and cached here for the context's life, with the
 * values derived from them. Never used inside a transaction, even when the answer is cached: a
 * load through the database handle (this one's, or another request's still running) would wait
 * for that transaction; a group that needs a key reads it before (`GroupCommit`'s `prepare`).
 */
export class Keyring {
  private readonly cache = new Map<string, Promise<LoadedKey>>();
  private readonly derivedValues = new Map<string, Promise<string>>();
  private secret: Promise<Uint8Array> | undefined;
  private readonly seeds = new Map<string, Promise<Uint8Array>>();

  constructor(private readonly db: Db) {}

  /** The key for `purpose` (e.g. `token`, `seal`, `issuer:<tenant>`), created on first use. */
  get(purpose: string, alg: "ES256"): Promise<Es256Key>;
  get(purpose: string, alg: Exclude<Alg, "ES256">): Promise<LoadedKey>;
  get(purpose: string, alg: Alg): Promise<LoadedKey> {
    refuseInsideTransaction(this.db, "a key");
    let p = this.cache.get(purpose);
    if (!p) {
      p = loadOrCreateKey(this.db, purpose, () => fresh(purpose, alg)).then(load);
      p.catch(() => this.cache.delete(purpose));
      this.cache.set(purpose, p);
    }
    return p;
  }

  /**
   * A value computed from keys (a tenancy's wallet address), computed once under `name`: keys never
   * change, and the computation is asked for on every write. A failed computation is not kept.
   */
  derived(name: string, compute: (keys: Keyring) => Promise<string>): Promise<string> {
    refuseInsideTransaction(this.db, "a value derived from keys");
    let p = this.derivedValues.get(name);
    if (!p) {
      p = compute(this);
      p.catch(() => this.derivedValues.delete(name));
      this.derivedValues.set(name, p);
    }
    return p;
  }

  /**
   * The 32-byte seed of a key node:crypto cannot hold (ML-DSA-44, whose FIPS 204 keygen is
   * deterministic in its seed), created once and stored like the other keys.
   */
  seed(purpose: string, alg: string): Promise<Uint8Array> {
    let p = this.seeds.get(purpose);
    if (!p) {
      p = loadOrCreateKey(this.db, purpose, () => ({
        purpose,
        alg,
        kid: `${alg.toLowerCase()}-${randomBytes(6).toString("hex")}`,
        privatePkcs8: randomBytes(32).toString("base64"),
        publicJwk: {},
      })).then((k) => new Uint8Array(Buffer.from(k.privatePkcs8, "base64")));
      p.catch(() => this.seeds.delete(purpose));
      this.seeds.set(purpose, p);
    }
    return p;
  }

  /** A 32-byte server secret (page-token MAC key), stored like a key so restarts keep it. */
  hmacSecret(): Promise<Uint8Array> {
    refuseInsideTransaction(this.db, "the server secret");
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
