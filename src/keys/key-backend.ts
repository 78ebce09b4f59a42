/**
 * Where the service's private signing keys are made and used: the key directory's files (the
 * default), a PKCS#11 token, or a cloud KMS. The key directory always keeps what is public about
 * each key (its kid, public key, validity) and which backend holds its private half; a backend
 * only makes key pairs and signs with them. docs/keys.md says how to write one (a KMS is one file
 * implementing this interface).
 */

/** The algorithms the service signs with (RS256 tokens, ES256 seals, receipts and statements, Ed25519 checkpoints). */
export type SigningAlg = "ES256" | "RS256" | "Ed25519";

/**
 * Every kind of key the service holds. ES256K (the tenancies' wallet keys) and X25519 (their
 * tessera keys) are identities the Self subject shows and never sign; ML-DSA-44 is a 32-byte
 * FIPS 204 seed; HS256 the page tokens' MAC secret.
 */
export type KeyAlg = SigningAlg | "ES256K" | "X25519" | "ML-DSA-44" | "HS256" | "A256GCM" | "ECVRF";

/** A private key's signature, as the algorithm's wire form (ES256: r‖s, 64 bytes; RS256: PKCS#1 v1.5; Ed25519: 64 bytes). */
export interface KeySigner {
  sign(data: Uint8Array): Promise<Uint8Array>;
  /**
   * The same signature, synchronously, where the backend can (a file key, a PKCS#11 session):
   * receipts are signed on request, on the hot path. A remote KMS leaves it out and the service
   * signs through `sign` (`signedWith`, src/keys/keyring.ts).
   */
  signSync?: (data: Uint8Array) => Uint8Array;
}

/** A key pair a backend made: its public JWK and the backend's own name for the private half. */
export interface MadeKey {
  publicJwk: Record<string, unknown>;
  /** What the backend needs to find the key again (a file name, a token object's CKA_ID, a KMS key version). */
  ref: string;
}

export interface KeyBackend {
  /** Recorded beside each key it makes (`holder` in the key directory's manifests). */
  readonly name: string;
  /** Whether it can make and use keys of `alg`; the others stay in the key directory. */
  holds(alg: KeyAlg): alg is SigningAlg;
  /** Makes a key pair for `purpose`; `label` names it where the backend shows names (a token's CKA_LABEL). */
  generate(purpose: string, alg: SigningAlg, label: string): Promise<MadeKey>;
  /** A signer of the purpose's key made as `ref`. */
  signer(purpose: string, ref: string, alg: SigningAlg): Promise<KeySigner>;
  /** Removes a key pair made by a start that lost the race to create the purpose's first key. */
  discard(purpose: string, ref: string): Promise<void>;
  close(): Promise<void>;
}
