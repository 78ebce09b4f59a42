// The keys room (src/keys/): the service's keys, kept beside the store and never in the database
// (docs/keys.md): the key directory and the backends holding private keys, the keyring over them,
// the secret box, and what guards signing (the signed state per log, the log guard, the signed
// basis). It may use the store's functions (never SQL of its own), core and the audit room;
// the services, the workers and the server use it (scripts/layers.json).
import { createPublicKey, type KeyObject, randomBytes } from "node:crypto";
import type { Signer } from "../core/log/sign1.js";
import { nodePublicKey } from "../core/node/crypto.js";
import { ecJwk, type PublicKey } from "../formats/crypto/public-key.js";
import type { Db } from "../store/drivers/db.js";
import { refuseInsideTransaction } from "../store/drivers/transaction-scope.js";
import { FILE_HOLDER, type FileKeys, secretPublicJwk } from "./file-keys.js";
import type { KeyAlg, KeyBackend, KeySigner, SigningAlg } from "./key-backend.js";
import type { KeyDirectory, KeyEntry, Manifest } from "./key-directory.js";
import { kidOf } from "./kid.js";

/** A usable key: its published id and public half, and signing by whichever backend holds it. */
export interface LoadedKey {
  purpose: string;
  kid: string;
  alg: string;
  publicKey: KeyObject;
  publicJwk: Record<string, unknown>;
  createdAt: string;
  /** When a newer key took over (a retired key still co-signing checkpoints); null for the current one. */
  retiredAt: string | null;
  sign(data: Uint8Array): Promise<Uint8Array>;
  /** Synchronous signing, where the backend offers it (file keys, PKCS#11); undefined for a remote KMS. */
  signSync: ((data: Uint8Array) => Uint8Array) | undefined;
}

/**
 * An ES256 key with its verifying key and, where the backend signs synchronously, its COSE signer,
 * made once when the key is loaded: the receipts and statements signed or checked with it reuse them.
 */
export interface Es256Key extends LoadedKey {
  signer: Signer | undefined;
  verifier: PublicKey;
}

type Alg = "RS256" | "ES256" | "ES256K" | "X25519" | "Ed25519";

/** The fixed signature lengths the two-pass signing of an asynchronous backend stands in for. */
const SIGNATURE_BYTES: Record<string, number> = { ES256: 64, Ed25519: 64 };

/**
 * A COSE (or other) message `build` signs through `signer`, with the key's synchronous signer
 * when it has one. Otherwise (a KMS) in two passes: the first records the bytes to be signed with
 * a stand-in signature of the right length, the key signs them, the second builds the message
 * with that signature and checks it was asked to sign the very same bytes.
 */
export async function signedWith(
  key: Pick<LoadedKey, "alg" | "sign" | "signSync">,
  build: (signer: Signer) => Uint8Array,
): Promise<Uint8Array> {
  if (key.signSync) return build(key.signSync);
  let toBeSigned: Uint8Array | undefined;
  build((data) => {
    toBeSigned = data.slice();
    return new Uint8Array(SIGNATURE_BYTES[key.alg] ?? 256);
  });
  if (!toBeSigned) throw new Error("the message asked for no signature");
  const asked = toBeSigned;
  const signature = await key.sign(asked);
  return build((data) => {
    if (Buffer.compare(Buffer.from(data), Buffer.from(asked)) !== 0)
      throw new Error("the message changed between its two signing passes");
    return signature;
  });
}

/** The public JWK published for an entry (kid, alg and use added). */
const publishedJwk = (e: KeyEntry) => ({ ...e.public_jwk, kid: e.kid, alg: e.alg, use: "sig" });

/** The purpose's current key: the newest not retired. */
/**
 * The promise kept under `key`, made by `make` on the first call; a failed one is dropped, so the
 * next call tries again rather than keeping the failure.
 */
function memo<V>(map: Map<string, Promise<V>>, key: string, make: () => Promise<V>): Promise<V> {
  let p = map.get(key);
  if (!p) {
    p = make();
    p.catch(() => map.delete(key));
    map.set(key, p);
  }
  return p;
}

function currentEntry(m: Manifest): KeyEntry | undefined {
  return m.keys.findLast((k) => k.retired_at === null);
}

/** What a rotation changed. */
export interface Rotation {
  purpose: string;
  old: KeyEntry;
  new: KeyEntry;
}

/** Purposes whose key may be rotated: the ones that sign (the identity keys and the MAC secret do not). */
function rotatable(purpose: string): boolean {
  return (
    ["seal", "token", "tlog", "tlog-ml-dsa-44"].includes(purpose) || /^issuer:[0-9a-f-]{36}$/.test(purpose)
  );
}

/**
 * The service's keys, from the key directory (never the database): each purpose's current key
 * (made on first use, by the configured backend when it can hold that kind of key, else as a file
 * of the directory), its history, and the secrets (ML-DSA-44 seeds, the page-token MAC key).
 * Loaded keys are cached until a rotation: `reload` re-reads the directory's rotation mark (on an
 * interval and at a wake-up) and forgets them when it changed. Never asked inside a transaction,
 * even when the answer is cached: a backend may be slow (a KMS round trip), and a group that needs
 * a key reads it before (`GroupCommit`'s `prepare`).
 */
/** The key store purpose of the verifiable index's VRF key. */
const VINDEX_VRF_KEY = "vindex-vrf";

export class Keyring {
  private readonly cache = new Map<string, Promise<LoadedKey>>();
  private readonly derivedValues = new Map<string, Promise<string>>();
  private readonly secrets = new Map<string, Promise<Uint8Array>>();
  private readonly histories = new Map<string, Promise<KeyEntry[]>>();
  private seenRotations: Promise<string>;

  constructor(
    private readonly db: Db,
    readonly dir: KeyDirectory,
    private readonly files: FileKeys,
    /** Where new signing keys are made when it can hold them (the files otherwise). */
    readonly backend: KeyBackend = files,
  ) {
    this.seenRotations = dir.rotations();
  }

  private backendNamed(holder: string): KeyBackend {
    if (holder === FILE_HOLDER) return this.files;
    if (holder === this.backend.name) return this.backend;
    throw new Error(
      `a key is held by the ${holder} backend, which is not configured (ARCHIVIST_KEY_BACKEND): docs/keys.md`,
    );
  }

  /** The backend a new key of `alg` is made in. */
  private backendFor(alg: KeyAlg): KeyBackend {
    return this.backend.holds(alg) ? this.backend : this.files;
  }

  /** A new key pair of `alg` for `purpose`, not yet recorded: its manifest entry. */
  private async make(purpose: string, alg: KeyAlg): Promise<KeyEntry> {
    const now = new Date().toISOString();
    if (alg === "ML-DSA-44" || alg === "HS256" || alg === "A256GCM" || alg === "ECVRF") {
      const secret = randomBytes(32);
      const kid = `${alg.toLowerCase()}-${randomBytes(6).toString("hex")}`;
      const ref = `${kid}.secret`;
      await this.dir.writePrivate(purpose, ref, secret.toString("base64"));
      const public_jwk = secretPublicJwk(alg, new Uint8Array(secret));
      return { kid, alg, holder: FILE_HOLDER, ref, public_jwk, created_at: now, retired_at: null };
    }
    const backend = this.backendFor(alg);
    if (backend === this.files || !backend.holds(alg)) {
      const made = await this.files.generateAny(purpose, alg);
      return {
        kid: made.kid,
        alg,
        holder: FILE_HOLDER,
        ref: made.ref,
        public_jwk: made.publicJwk,
        created_at: now,
        retired_at: null,
      };
    }
    const made = await backend.generate(purpose, alg, `archivist ${purpose}`);
    return {
      kid: kidOf(made.publicJwk),
      alg,
      holder: backend.name,
      ref: made.ref,
      public_jwk: made.publicJwk,
      created_at: now,
      retired_at: null,
    };
  }

  private async discard(purpose: string, e: KeyEntry): Promise<void> {
    if (e.holder === FILE_HOLDER) await this.dir.removePrivate(purpose, e.ref);
    else await this.backendNamed(e.holder).discard(purpose, e.ref);
  }

  /** The purpose's manifest, its first key made when it has none (first writer wins across processes). */
  async manifest(purpose: string, alg: KeyAlg): Promise<Manifest> {
    const found = await this.dir.manifest(purpose);
    if (found) return found;
    const mine = await this.make(purpose, alg);
    const won = await this.dir.createFirst(purpose, mine);
    if (!won.keys.some((k) => k.kid === mine.kid && k.ref === mine.ref)) await this.discard(purpose, mine);
    return won;
  }

  private async load(purpose: string, e: KeyEntry): Promise<LoadedKey> {
    const alg = e.alg as SigningAlg | "ES256K" | "X25519";
    const publicKey = createPublicKey({ key: { ...e.public_jwk }, format: "jwk" });
    let signer: KeySigner | undefined;
    const signerOf = async () => {
      if (alg !== "ES256" && alg !== "RS256" && alg !== "Ed25519")
        throw new Error(`the ${purpose} key (${alg}) does not sign`);
      signer ??= await this.backendNamed(e.holder).signer(purpose, e.ref, alg);
      return signer;
    };
    const signs = alg === "ES256" || alg === "RS256" || alg === "Ed25519";
    if (signs) await signerOf();
    const loaded: LoadedKey = {
      purpose,
      kid: e.kid,
      alg: e.alg,
      publicKey,
      publicJwk: publishedJwk(e),
      createdAt: e.created_at,
      retiredAt: e.retired_at,
      sign: async (data) => (await signerOf()).sign(data),
      signSync: signer?.signSync,
    };
    if (alg !== "ES256") return loaded;
    const es: Es256Key = {
      ...loaded,
      signer: loaded.signSync,
      verifier: nodePublicKey(publicKey),
    };
    return es;
  }

  /** The current key for `purpose` (e.g. `token`, `seal`, `issuer:<tenant>`), created on first use. */
  get(purpose: string, alg: "ES256"): Promise<Es256Key>;
  get(purpose: string, alg: Exclude<Alg, "ES256">): Promise<LoadedKey>;
  get(purpose: string, alg: Alg): Promise<LoadedKey> {
    refuseInsideTransaction(this.db, "a key");
    return memo(this.cache, purpose, () =>
      this.manifest(purpose, alg).then((m) => this.load(purpose, this.current(purpose, m))),
    );
  }

  /**
   * Every key the purpose has had, current first, then the retired ones newest first (as they are
   * published: a client taking the first key gets the one signing now). Creates the first key.
   */
  history(purpose: string, alg: KeyAlg): Promise<KeyEntry[]> {
    return memo(this.histories, purpose, () =>
      this.manifest(purpose, alg).then((m) => {
        const current = currentEntry(m);
        const retired = m.keys.filter((k) => k !== current).reverse();
        return current ? [current, ...retired] : retired;
      }),
    );
  }

  /** The purpose's retired keys that still co-sign (a checkpoint key's overlap after a rotation). */
  async cosigners(purpose: string, alg: "Ed25519"): Promise<LoadedKey[]> {
    return Promise.all(
      (await this.cosigning(purpose, alg)).map((e) =>
        memo(this.cache, `${purpose}#${e.kid}`, () => this.load(purpose, e)),
      ),
    );
  }

  /**
   * A value computed from keys (a tenancy's wallet address), computed once under `name`: the
   * identity keys it is computed from never rotate, and the computation is asked for on every
   * write. A failed computation is not kept.
   */
  derived(name: string, compute: (keys: Keyring) => Promise<string>): Promise<string> {
    refuseInsideTransaction(this.db, "a value derived from keys");
    return memo(this.derivedValues, name, () => compute(this));
  }

  private secret(purpose: string, alg: "ML-DSA-44" | "HS256" | "A256GCM" | "ECVRF"): Promise<Uint8Array> {
    return memo(this.secrets, purpose, () =>
      this.manifest(purpose, alg).then((m) => this.readSecret(purpose, this.current(purpose, m))),
    );
  }

  private async readSecret(purpose: string, e: KeyEntry): Promise<Uint8Array> {
    return new Uint8Array(Buffer.from((await this.dir.readPrivate(purpose, e.ref)).trim(), "base64"));
  }

  /** The manifest's current key; a manifest without one is a key directory damaged by hand. */
  private current(purpose: string, m: Manifest): KeyEntry {
    const e = currentEntry(m);
    if (!e) throw new Error(`the ${purpose} key has no current key in ${this.dir.path}`);
    return e;
  }

  /** The purpose's retired keys whose co-signing overlap has not ended. */
  private async cosigning(purpose: string, alg: KeyAlg): Promise<KeyEntry[]> {
    refuseInsideTransaction(this.db, "a key");
    const now = new Date().toISOString();
    return (await this.history(purpose, alg)).filter(
      (k) => k.retired_at !== null && (k.cosign_until ?? "") > now,
    );
  }

  /**
   * The 32-byte seed of a key node:crypto cannot hold (ML-DSA-44, whose FIPS 204 keygen is
   * deterministic in its seed): a file of the key directory on every backend (docs/keys.md).
   */
  seed(purpose: string, alg: "ML-DSA-44"): Promise<Uint8Array> {
    refuseInsideTransaction(this.db, "a key");
    return this.secret(purpose, alg);
  }

  /** Seeds of the purpose's retired keys still co-signing (each loaded once, until a rotation). */
  async cosigningSeeds(purpose: string, alg: "ML-DSA-44"): Promise<Uint8Array[]> {
    return Promise.all(
      (await this.cosigning(purpose, alg)).map((e) =>
        memo(this.secrets, `${purpose}#${e.kid}`, () => this.readSecret(purpose, e)),
      ),
    );
  }

  /**
   * The verifiable index's VRF key (ECVRF-EDWARDS25519-SHA512-TAI, an RFC 8032 secret): a file of
   * the key directory on every backend (an HSM does not compute a VRF). Not rotatable: every
   * position in every index derives from it (docs/complete-trails.md).
   */
  vrfSecret(): Promise<Uint8Array> {
    refuseInsideTransaction(this.db, "the index's VRF key");
    return this.secret(VINDEX_VRF_KEY, "ECVRF");
  }

  /** A 32-byte server secret (page-token MAC key), kept in the key directory so restarts keep it. */
  hmacSecret(): Promise<Uint8Array> {
    refuseInsideTransaction(this.db, "the server secret");
    return this.secret("page-token", "HS256");
  }

  /**
   * The key that seals secrets the service keeps in the database (`src/keys/secret-box.ts`):
   * a file of the key directory on every backend, made at its first use. Not rotatable: what it
   * sealed would have to be sealed again (docs/keys.md).
   */
  secretBoxKey(): Promise<Uint8Array> {
    refuseInsideTransaction(this.db, "the secret box key");
    return this.secret("secret-box", "A256GCM");
  }

  /**
   * Re-reads the key directory's rotation mark; when another process (`archivist keys rotate`)
   * changed it, forgets the loaded keys so the next use loads the current ones. True when it did.
   */
  async reload(): Promise<boolean> {
    const [seen, now] = await Promise.all([this.seenRotations, this.dir.rotations()]);
    if (seen === now) return false;
    this.seenRotations = Promise.resolve(now);
    this.cache.clear();
    this.secrets.clear();
    this.histories.clear();
    return true;
  }

  /**
   * Makes a new key for `purpose` and makes it current: the old one is kept, retired now (a
   * checkpoint key co-signs for `cosignDays` more, so witnesses and verifiers that pinned it can
   * move on). Every process learns of it at its next `reload`.
   */
  async rotate(purpose: string, opts: { cosignDays?: number } = {}): Promise<Rotation> {
    if (!rotatable(purpose)) throw new Error(`the ${purpose} key cannot be rotated (docs/keys.md)`);
    let made: KeyEntry | undefined;
    let old: KeyEntry | undefined;
    try {
      await this.dir.update(purpose, async (m) => {
        const current = m && currentEntry(m);
        if (!m || !current) throw new Error(`the ${purpose} key does not exist yet: nothing to rotate`);
        old = current;
        made = await this.make(purpose, current.alg);
        const now = new Date(made.created_at);
        const checkpointKey = purpose === "tlog" || purpose === "tlog-ml-dsa-44";
        const retired: KeyEntry = { ...current, retired_at: made.created_at };
        if (checkpointKey)
          retired.cosign_until = new Date(now.getTime() + (opts.cosignDays ?? 30) * 86_400_000).toISOString();
        return { purpose, keys: [...m.keys.map((k) => (k === current ? retired : k)), made] };
      });
    } catch (err) {
      if (made) await this.discard(purpose, made);
      throw err;
    }
    await this.dir.markRotation();
    await this.reload();
    return { purpose, old: old as KeyEntry, new: made as KeyEntry };
  }

  async close(): Promise<void> {
    if (this.backend !== this.files) await this.backend.close();
  }
}

/** The verifying key of an ES256 key entry (a retired one's, to publish it). */
export function es256PublicKey(e: KeyEntry): PublicKey {
  return nodePublicKey(createPublicKey({ key: { ...ecJwk(e.public_jwk) }, format: "jwk" }));
}
