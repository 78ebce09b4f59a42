// Stands in for node:crypto in the browser bundle. Core imports exactly createHash,
// createPublicKey, sign and verify (and the KeyObject type); the verifier needs SHA-256
// and ES256 (P-256, IEEE P1363 signatures), so that is all this implements.
import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { Buffer, type ShimBuffer } from "./buffer-shim.js";

/** The browser's stand-in for a node:crypto public KeyObject: an uncompressed P-256 point. */
export interface KeyObject {
  type: "public";
  asymmetricKeyType: "ec";
  point: Uint8Array;
  export(opts: { format: "jwk" }): { kty: "EC"; crv: "P-256"; x: string; y: string };
}

type Data = Uint8Array | string;
const bytesOf = (d: Data): Uint8Array => (typeof d === "string" ? new TextEncoder().encode(d) : d);

/** SHA-256 only; `digest("hex")` or bytes, as node:crypto's Hash. */
export function createHash(algorithm: string) {
  if (algorithm.toLowerCase() !== "sha256") throw new Error(`the browser verifier has no ${algorithm}`);
  const h = sha256.create();
  const hash = {
    update(data: Data) {
      h.update(bytesOf(data));
      return hash;
    },
    digest(encoding?: "hex"): ShimBuffer | string {
      const out = Buffer.from(h.digest());
      return encoding === "hex" ? out.toString("hex") : out;
    },
  };
  return hash as { update(data: Data): typeof hash; digest(): ShimBuffer; digest(encoding: "hex"): string };
}

type JwkInput = { key: { kty?: string; crv?: string; x?: string; y?: string }; format: "jwk" };

/** Public P-256 keys from a JWK (how core builds keys from COSE_Key), or a KeyObject as is. */
export function createPublicKey(input: JwkInput | KeyObject): KeyObject {
  if ("type" in input) return input;
  const { crv, x, y } = input.key;
  if (crv !== "P-256" || !x || !y) throw new Error("the browser verifier takes P-256 JWKs only");
  const point = Buffer.concat([Uint8Array.of(4), Buffer.from(x, "base64url"), Buffer.from(y, "base64url")]);
  p256.Point.fromBytes(point).assertValidity();
  return {
    type: "public",
    asymmetricKeyType: "ec",
    point,
    export: () => ({ kty: "EC", crv: "P-256", x, y }),
  };
}

/** ES256 verification of an r‖s (IEEE P1363) signature over SHA-256(data). */
export function verify(
  algorithm: string,
  data: Uint8Array,
  opts: { key: KeyObject; dsaEncoding?: string },
  signature: Uint8Array,
): boolean {
  if (algorithm !== "sha256" || opts.dsaEncoding !== "ieee-p1363") return false;
  // OpenSSL accepts high-S signatures, so the browser must as well.
  return p256.verify(signature, data, opts.key.point, { prehash: true, lowS: false, format: "compact" });
}

/** Signing never happens in the verifier; core imports it, so it must exist. */
export function sign(): never {
  throw new Error("signing is not available in the browser verifier");
}
