import type { Signer } from "../core/log/sign1.js";
import { type LoadedKey, signedWith } from "./keyring.js";

/** Signatures kept at most; past it the memo starts over (~300 bytes each). */
const KEPT = 20_000;

/**
 * Signatures kept by the key and the exact bytes it signed. A receipt's Sig_structure is its log's
 * protected header and the peak (MMR) or root (RFC 9162) its path leads to: the same for every
 * record under one peak of one seal, and for every record of one tree size. One signature then
 * serves them all, where one per receipt cost an ECDSA signing each (a round trip each to a KMS),
 * and a verifier that keeps what it checked (`verifyBundle`) checks it once, not once a record.
 */
export class SignatureMemo {
  readonly #kept = new Map<string, Uint8Array>();

  get(key: string): Uint8Array | undefined {
    return this.#kept.get(key);
  }

  set(key: string, signature: Uint8Array): Uint8Array {
    if (this.#kept.size >= KEPT) this.#kept.clear();
    this.#kept.set(key, signature);
    return signature;
  }
}

/**
 * `signedWith`, signing each distinct Sig_structure once per key: what the key signed before is
 * given again. The memo's key names the key by its kid and public point, so a rotated key (or one
 * of the same kid restored with other material) never reuses another key's signature.
 */
export function signedOnce(
  memo: SignatureMemo,
  key: Pick<LoadedKey, "alg" | "sign" | "signSync" | "kid" | "publicJwk">,
  build: (signer: Signer) => Uint8Array,
): Promise<Uint8Array> {
  const id = `${key.kid}\n${String(key.publicJwk.x)}\n${String(key.publicJwk.y)}\n`;
  const named = (toBeSigned: Uint8Array) => id + Buffer.from(toBeSigned).toString("latin1");
  const sync = key.signSync;
  return signedWith(
    {
      alg: key.alg,
      // The bytes are read during the call only (to name them), as the key's own signer reads them.
      signSync: sync
        ? (toBeSigned) => {
            const name = named(toBeSigned);
            return memo.get(name) ?? memo.set(name, sync(toBeSigned).slice());
          }
        : undefined,
      sign: async (toBeSigned) => {
        const name = named(toBeSigned);
        return memo.get(name) ?? memo.set(name, (await key.sign(toBeSigned)).slice());
      },
    },
    build,
  );
}
