import { type EcJwk, type PublicKey, type PublicKeyFactory, publicKeyFromJwk } from "../verify/index.js";

type Hash = Parameters<PublicKey["verify"]>[0];

/** One signature to check: by which key, over which bytes, with which digest. */
export interface SignatureQuestion {
  jwk: EcJwk;
  hash: Hash;
  data: Uint8Array;
  signature: Uint8Array;
}

/** A platform's own signature check, asynchronous (WebCrypto's is). */
export type NativeVerify = (q: SignatureQuestion) => Promise<boolean>;

const BYTES = { "P-256": 32, "P-384": 48, "P-521": 66 } as const;
const WEB_HASH = { sha256: "SHA-256", sha384: "SHA-384", sha512: "SHA-512" } as const;

/**
 * ECDSA through WebCrypto (`crypto.subtle`: native code, a fraction of a millisecond a signature
 * where the portable check takes milliseconds), or undefined where the page has none (a page
 * served over plain HTTP from another host is not a secure context). Like the portable check it
 * takes IEEE P1363 r‖s and accepts high-S signatures.
 */
export function webCryptoVerify(): NativeVerify | undefined {
  const subtle = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (!subtle) return undefined;
  const keys = new Map<string, Promise<CryptoKey>>();
  return async ({ jwk, hash, data, signature }) => {
    if (signature.length !== 2 * BYTES[jwk.crv]) return false;
    const id = `${jwk.crv}:${jwk.x}:${jwk.y}`;
    let key = keys.get(id);
    if (!key) {
      const namedCurve = jwk.crv;
      key = subtle.importKey("jwk", { ...jwk, ext: true }, { name: "ECDSA", namedCurve }, false, ["verify"]);
      keys.set(id, key);
    }
    const algorithm = { name: "ECDSA", hash: WEB_HASH[hash] };
    return subtle.verify(algorithm, await key, signature as BufferSource, data as BufferSource);
  };
}

/** The bytes as a string of one character each, to key the memo by exact content (cheaply). */
function text(b: Uint8Array): string {
  let s = "";
  for (let at = 0; at < b.length; at += 4096)
    s += String.fromCharCode.apply(null, b.subarray(at, at + 4096) as unknown as number[]);
  return s;
}

/** Rounds of assumed answers before the rest are checked with the portable code as they come. */
const ROUNDS = 4;

/**
 * The pages' signature checks: each answer remembered by the key, the digest, the exact bytes
 * signed and the signature (a trail's receipts sign the same few peaks and roots, and a verdict
 * asks some twice), and, where the platform has one, checked natively.
 *
 * The verifier asks its signature questions synchronously, and WebCrypto answers asynchronously,
 * so `judge` runs a judgement in rounds: a question not yet answered is assumed to check out and
 * noted; the noted ones are then checked natively, all at once. When every assumption was right,
 * that round asked nothing but questions whose true answer it was given, so its result is the
 * judgement itself, and it is returned. When one was wrong the round is thrown away, unseen, and
 * the judgement runs again knowing that answer (it may then ask other questions). Nothing judged
 * under an assumption that proved false is ever returned: no receipt is called verified before its
 * signature is checked. Without a native check, every question is answered by the portable code.
 */
export class SignatureMemo {
  private readonly answers = new Map<string, boolean>();
  private noted = new Map<string, SignatureQuestion & { key: PublicKey }>();
  private assuming = false;
  private busy = false;

  constructor(
    private readonly native: NativeVerify | undefined = webCryptoVerify(),
    private readonly make: PublicKeyFactory = publicKeyFromJwk,
  ) {}

  /** Keys whose checks go through this memo (a key made once serves every round). */
  readonly makeKey: PublicKeyFactory = (input) => {
    const key = this.make(input);
    const { jwk } = key;
    const prefix = `${jwk.crv}:${jwk.x}:${jwk.y}`;
    return {
      jwk,
      verify: (hash, data, signature) => {
        const id = `${prefix}:${hash}:${signature.length}:${text(signature)}${text(data)}`;
        const known = this.answers.get(id);
        if (known !== undefined) return known;
        if (this.assuming) {
          // Copies: the verifier may reuse its buffers once the call returns.
          this.noted.set(id, { jwk, hash, data: data.slice(), signature: signature.slice(), key });
          return true;
        }
        const ok = key.verify(hash, data, signature);
        this.answers.set(id, ok);
        return ok;
      },
    };
  };

  /** The judgement `run` makes, every signature it asks about checked (see the class). One at a time. */
  async judge<T>(run: () => T | Promise<T>): Promise<T> {
    if (!this.native) return run();
    if (this.busy) throw new Error("one judgement at a time per signature memo");
    this.busy = true;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        this.assuming = true;
        let result: T;
        try {
          result = await run();
        } finally {
          this.assuming = false;
        }
        if (await this.settle()) return result;
      }
      return await run();
    } finally {
      this.noted.clear();
      this.busy = false;
    }
  }

  /** Checks the noted questions natively; true when every one checked out as assumed. */
  private async settle(): Promise<boolean> {
    const noted = [...this.noted];
    this.noted = new Map();
    const answers = await Promise.all(
      noted.map(async ([, q]) => {
        const portable = () => q.key.verify(q.hash, q.data, q.signature);
        // A key the platform cannot take is checked with the portable code; so is a signature it
        // refuses, so that a verdict of tampering is the portable verifier's too (as the CLI's).
        return (await this.native?.(q).catch(() => false)) || portable();
      }),
    );
    for (const [i, [id]] of noted.entries()) this.answers.set(id, answers[i] as boolean);
    return answers.every(Boolean);
  }
}
