import { createHash, createPublicKey, randomBytes } from "node:crypto";
import type { Handle, PKCS11, Template } from "pkcs11js";
import type { KeyAlg, KeyBackend, KeySigner, MadeKey, SigningAlg } from "./key-backend.js";

/** The backend name of keys made on a PKCS#11 token. */
const PKCS11_HOLDER = "pkcs11";

// PKCS#11 3.0 names pkcs11js does not export (its constants stop at 2.40).
const CKK_EC_EDWARDS = 0x40;
const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055;
const CKM_EDDSA = 0x1057;

// DER of the curves' OIDs: P-256 (1.2.840.10045.3.1.7) and Ed25519 (1.3.101.112).
const P256_PARAMS = Buffer.from("06082a8648ce3d030107", "hex");
const ED25519_PARAMS = Buffer.from("06032b6570", "hex");

/** The value inside a DER OCTET STRING (a token's CKA_EC_POINT), or the bytes as they are when they are not one. */
function octets(der: Buffer, length: number): Buffer {
  if (der.length === length) return der;
  if (der[0] !== 0x04) throw new Error("the token's EC point is not an OCTET STRING");
  const long = (der[1] as number) & 0x80;
  const start = long ? 2 + ((der[1] as number) & 0x7f) : 2;
  const value = der.subarray(start);
  if (value.length !== length)
    throw new Error(`the token's EC point has ${value.length} bytes, not ${length}`);
  return value;
}

const b64u = (b: Buffer) => b.toString("base64url");

export interface Pkcs11Settings {
  /** The PKCS#11 library (SoftHSM2: /usr/lib/softhsm/libsofthsm2.so). */
  module: string;
  /** The token's label. */
  token: string;
  /** The user PIN. */
  pin: string;
}

/**
 * Keys on a PKCS#11 token (an HSM; SoftHSM2 in the tests), through `pkcs11js`: ES256 (ECDSA over
 * a SHA-256 digest taken here), RS256 (CKM_SHA256_RSA_PKCS) and Ed25519 (CKM_EDDSA, where the
 * token has it). The private keys are made on the token, sensitive and never extractable; the
 * process signs through one logged-in session, synchronously (pkcs11js's C_Sign), so a receipt
 * costs one token call. ML-DSA-44 (no PKCS#11 mechanism yet), the page tokens' HMAC secret and the
 * identity keys that never sign stay in the key directory (docs/keys.md).
 */
export class Pkcs11Keys implements KeyBackend {
  readonly name = PKCS11_HOLDER;
  private readonly mechanisms: Set<number>;
  private readonly handles = new Map<string, Handle>();

  private constructor(
    private readonly lib: PKCS11,
    private readonly consts: typeof import("pkcs11js"),
    private readonly session: Handle,
    mechanisms: number[],
  ) {
    this.mechanisms = new Set(mechanisms);
  }

  /** Loads the module, finds the token by its label and logs in. */
  static async open(s: Pkcs11Settings): Promise<Pkcs11Keys> {
    let mod: typeof import("pkcs11js");
    try {
      mod = (await import("pkcs11js")).default as unknown as typeof import("pkcs11js");
    } catch (err) {
      throw new Error(
        `ARCHIVIST_KEY_BACKEND=pkcs11 needs the pkcs11js package, which did not load (npm install pkcs11js; it builds with node-gyp): ${(err as Error).message}`,
      );
    }
    const lib = new mod.PKCS11();
    lib.load(s.module);
    lib.C_Initialize();
    const slot = lib.C_GetSlotList(true).find((sl) => lib.C_GetTokenInfo(sl).label.trim() === s.token);
    if (!slot) {
      lib.C_Finalize();
      throw new Error(`no PKCS#11 token labelled "${s.token}" in ${s.module}`);
    }
    const session = lib.C_OpenSession(slot, mod.CKF_SERIAL_SESSION | mod.CKF_RW_SESSION);
    try {
      lib.C_Login(session, mod.CKU_USER, s.pin);
    } catch (err) {
      lib.C_CloseSession(session);
      lib.C_Finalize();
      throw new Error(`the PKCS#11 token "${s.token}" refused the PIN: ${(err as Error).message}`);
    }
    return new Pkcs11Keys(lib, mod, session, lib.C_GetMechanismList(slot));
  }

  holds(alg: KeyAlg): alg is SigningAlg {
    const m = this.consts;
    if (alg === "ES256")
      return this.mechanisms.has(m.CKM_EC_KEY_PAIR_GEN) && this.mechanisms.has(m.CKM_ECDSA);
    if (alg === "RS256")
      return this.mechanisms.has(m.CKM_RSA_PKCS_KEY_PAIR_GEN) && this.mechanisms.has(m.CKM_SHA256_RSA_PKCS);
    if (alg === "Ed25519")
      return this.mechanisms.has(CKM_EC_EDWARDS_KEY_PAIR_GEN) && this.mechanisms.has(CKM_EDDSA);
    return false;
  }

  async generate(_purpose: string, alg: SigningAlg, label: string): Promise<MadeKey> {
    const m = this.consts;
    const id = randomBytes(16);
    const common: Template = [
      { type: m.CKA_TOKEN, value: true },
      { type: m.CKA_ID, value: id },
      { type: m.CKA_LABEL, value: label },
    ];
    const publicT: Template = [...common, { type: m.CKA_VERIFY, value: true }];
    const privateT: Template = [
      ...common,
      { type: m.CKA_SIGN, value: true },
      { type: m.CKA_PRIVATE, value: true },
      { type: m.CKA_SENSITIVE, value: true },
      { type: m.CKA_EXTRACTABLE, value: false },
    ];
    let mechanism: number;
    if (alg === "RS256") {
      mechanism = m.CKM_RSA_PKCS_KEY_PAIR_GEN;
      publicT.push(
        { type: m.CKA_MODULUS_BITS, value: 2048 },
        { type: m.CKA_PUBLIC_EXPONENT, value: Buffer.from([1, 0, 1]) },
      );
    } else if (alg === "ES256") {
      mechanism = m.CKM_EC_KEY_PAIR_GEN;
      publicT.push({ type: m.CKA_EC_PARAMS, value: P256_PARAMS });
    } else {
      mechanism = CKM_EC_EDWARDS_KEY_PAIR_GEN;
      publicT.push(
        { type: m.CKA_KEY_TYPE, value: CKK_EC_EDWARDS },
        { type: m.CKA_EC_PARAMS, value: ED25519_PARAMS },
      );
      privateT.push({ type: m.CKA_KEY_TYPE, value: CKK_EC_EDWARDS });
    }
    const pair = this.lib.C_GenerateKeyPair(this.session, { mechanism }, publicT, privateT);
    const ref = id.toString("hex");
    this.handles.set(ref, pair.privateKey);
    return { publicJwk: this.publicJwk(pair.publicKey, alg), ref };
  }

  private attribute(handle: Handle, type: number): Buffer {
    const [a] = this.lib.C_GetAttributeValue(this.session, handle, [{ type }]);
    if (!a || !Buffer.isBuffer(a.value)) throw new Error(`the token did not answer attribute ${type}`);
    return a.value;
  }

  private publicJwk(handle: Handle, alg: SigningAlg): Record<string, unknown> {
    const m = this.consts;
    if (alg === "RS256") {
      const jwk = {
        kty: "RSA",
        n: b64u(this.attribute(handle, m.CKA_MODULUS)),
        e: b64u(this.attribute(handle, m.CKA_PUBLIC_EXPONENT)),
      };
      // Checked by node:crypto, so a token's odd encoding fails here and not in a verifier.
      createPublicKey({ key: jwk, format: "jwk" });
      return jwk;
    }
    if (alg === "ES256") {
      const point = octets(this.attribute(handle, m.CKA_EC_POINT), 65);
      const jwk = { kty: "EC", crv: "P-256", x: b64u(point.subarray(1, 33)), y: b64u(point.subarray(33)) };
      createPublicKey({ key: jwk, format: "jwk" });
      return jwk;
    }
    return { kty: "OKP", crv: "Ed25519", x: b64u(octets(this.attribute(handle, m.CKA_EC_POINT), 32)) };
  }

  /** The private key object of `ref` (its CKA_ID). */
  private find(ref: string): Handle {
    const kept = this.handles.get(ref);
    if (kept) return kept;
    const m = this.consts;
    this.lib.C_FindObjectsInit(this.session, [
      { type: m.CKA_CLASS, value: m.CKO_PRIVATE_KEY },
      { type: m.CKA_ID, value: Buffer.from(ref, "hex") },
    ]);
    try {
      const [handle] = this.lib.C_FindObjects(this.session, 2);
      if (!handle) throw new Error(`the PKCS#11 token holds no private key with CKA_ID ${ref}`);
      this.handles.set(ref, handle);
      return handle;
    } finally {
      this.lib.C_FindObjectsFinal(this.session);
    }
  }

  async signer(_purpose: string, ref: string, alg: SigningAlg): Promise<KeySigner> {
    const m = this.consts;
    const key = this.find(ref);
    const mechanism = alg === "ES256" ? m.CKM_ECDSA : alg === "RS256" ? m.CKM_SHA256_RSA_PKCS : CKM_EDDSA;
    const room = alg === "RS256" ? 512 : 64;
    // One session, used by one call at a time: Node runs these synchronously, so init and sign never interleave.
    // The token reads the data during the call only (the digest or a copy is what it is given).
    const signSync = (data: Uint8Array): Uint8Array => {
      const input = alg === "ES256" ? createHash("sha256").update(data).digest() : Buffer.from(data);
      this.lib.C_SignInit(this.session, { mechanism }, key);
      const sig = this.lib.C_Sign(this.session, input, Buffer.alloc(room));
      return new Uint8Array(sig.buffer, sig.byteOffset, sig.byteLength);
    };
    return {
      signSync: Object.assign(signSync, { readsDuringCallOnly: true as const }),
      sign: async (data) => signSync(data),
    };
  }

  async discard(_purpose: string, ref: string): Promise<void> {
    const m = this.consts;
    this.lib.C_FindObjectsInit(this.session, [{ type: m.CKA_ID, value: Buffer.from(ref, "hex") }]);
    let found: Handle[];
    try {
      found = this.lib.C_FindObjects(this.session, 4);
    } finally {
      this.lib.C_FindObjectsFinal(this.session);
    }
    for (const h of found) this.lib.C_DestroyObject(this.session, h);
    this.handles.delete(ref);
  }

  async close(): Promise<void> {
    try {
      this.lib.C_Logout(this.session);
      this.lib.C_CloseSession(this.session);
    } finally {
      this.lib.C_Finalize();
    }
  }
}
