import { p256 } from "@noble/curves/nist.js";
import type { Signer } from "../../src/core/cose/index.js";
import { ecJwk, publicKeyFromJwk } from "../../src/core/crypto/public-key.js";
import { sharedJson } from "./shared.js";

interface Vectors {
  key: { d: string; publicJwk: { kty: string; crv: string; x: string; y: string } };
}

const v = sharedJson<Vectors>("vectors/signed-statement-generated.json");

/** The public key of the generated statement vectors (RFC 6979 A.2.5 P-256 test key). */
export const vectorPublicKey = publicKeyFromJwk(ecJwk(v.key.publicJwk));

/** RFC 6979 deterministic ES256 signer with the vectors' key, so re-signing reproduces their bytes. */
export const deterministicSigner: Signer = (data) =>
  p256.sign(data, new Uint8Array(Buffer.from(v.key.d, "hex")));
