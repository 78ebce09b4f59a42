// The core's Node fast paths: node:crypto (OpenSSL) for what the portable code does with
// @noble (src/core/crypto). The service and the CLI use these; vcon-archivist/verify never
// reaches this folder, so it stays free of `node:` modules (test/unit/verify/browser-safe.test.ts).

import { createPublicKey, hash, type KeyObject, sign, verify } from "node:crypto";
import {
  type Ed25519Key,
  ecJwk,
  type OkpJwk,
  type PublicKey,
  type PublicKeyFactory,
  type SignatureKey,
  signatureJwk,
} from "../../formats/crypto/public-key.js";
import type { AsciiLeafSha256, Sha256 } from "../../formats/crypto/sha256.js";
import { SHORT_MESSAGE, sha256Into } from "../../formats/crypto/sha256-short.js";
import type { Signer } from "../log/sign1.js";

/** Where `nodeSha256` lays out its parts; grown when a message is larger, never shared across a call. */
let scratch = Buffer.allocUnsafe(4096);

/**
 * node:crypto's SHA-256: the service's hot paths (leaves, MMR and tree nodes) hash with it. The
 * parts are copied into one buffer and hashed in one call: a `createHash` object per node, fed
 * part by part, cost ~1.7 µs where this costs ~1.2 (a committed entry takes six or so hashes).
 * The copy is synchronous and the digest a fresh buffer, so nothing returned aliases `scratch`.
 */
export const nodeSha256: Sha256 = (...parts) => {
  let data: Uint8Array;
  if (parts.length === 1) data = parts[0] as Uint8Array;
  else {
    let size = 0;
    for (const p of parts) size += p.length;
    if (size > scratch.length) scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
    let at = 0;
    for (const p of parts) {
      scratch.set(p, at);
      at += p.length;
    }
    data = scratch.subarray(0, size);
  }
  if (data.length <= SHORT_MESSAGE) {
    const out = new Uint8Array(32);
    sha256Into(data, out);
    return out;
  }
  const d = hash("sha256", data, "buffer");
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
};

/**
 * An asset event's leaf from its bencode text (`AsciiLeafSha256`), written into `scratch` by the
 * runtime in one call: the text's test for ASCII, its UTF-8 encoding and the copy into the hashed
 * buffer were three passes and an allocation (~3 % of a profile's samples under ingest). With room
 * for three bytes per UTF-16 unit nothing is cut short, so the bytes written equal the length
 * exactly when every character is one byte.
 */
export const nodeAsciiLeafSha256: AsciiLeafSha256 = (idtimestamp, text) => {
  const room = 9 + 3 * text.length;
  if (room > scratch.length) scratch = Buffer.allocUnsafe(Math.max(room, scratch.length * 2));
  scratch[0] = 0;
  scratch.writeBigUInt64BE(idtimestamp, 1);
  const written = scratch.write(text, 9, "utf8");
  if (written !== text.length) return undefined;
  const d = hash("sha256", scratch.subarray(0, 9 + written), "buffer");
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
};

/** A PublicKey checked by node:crypto; a private key stands for its public half. */
export function nodePublicKey(key: KeyObject): PublicKey {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  const jwk = ecJwk(publicKey.export({ format: "jwk" }));
  return {
    jwk,
    verify: (hash, data, signature) => {
      try {
        return verify(hash, data, { key: publicKey, dsaEncoding: "ieee-p1363" }, signature);
      } catch {
        return false;
      }
    },
  };
}

/** The PublicKeyFactory on node:crypto (for `keysFromKeySet` and the trust roots in Node programs). */
export const nodePublicKeyFromJwk: PublicKeyFactory = (jwk) =>
  nodePublicKey(createPublicKey({ key: { ...jwk }, format: "jwk" }));

/**
 * A statement issuer's key checked by node:crypto: ECDSA as `nodePublicKey`, or Ed25519 (TypeError
 * for any other kind); a private key stands for its public half.
 */
export function nodeSignatureKey(key: KeyObject): SignatureKey {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  if (publicKey.asymmetricKeyType !== "ed25519") return nodePublicKey(publicKey);
  const ed: Ed25519Key = {
    jwk: signatureJwk(publicKey.export({ format: "jwk" })) as OkpJwk,
    verify: (data, signature) => {
      try {
        return verify(null, data, publicKey, signature);
      } catch {
        return false;
      }
    },
  };
  return ed;
}

/** `nodeSignatureKey` of an issuer's JWK (EC on P-256, P-384 or P-521, or OKP Ed25519). */
export const nodeSignatureKeyFromJwk = (jwk: unknown): SignatureKey =>
  nodeSignatureKey(createPublicKey({ key: { ...signatureJwk(jwk) }, format: "jwk" }));

/**
 * ES256 (IEEE P1363 r‖s) with a node:crypto private key. Whoever signs often with one key makes its
 * signer once and keeps it (the service's keyring does, per loaded key).
 */
export function nodeSigner(privateKey: KeyObject): Signer {
  const options = { key: privateKey, dsaEncoding: "ieee-p1363" } as const;
  // node:crypto reads the data during the call only.
  return Object.assign((data: Uint8Array) => sign("sha256", data, options), {
    readsDuringCallOnly: true as const,
  });
}
