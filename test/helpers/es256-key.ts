import { generateKeyPairSync, type KeyObject } from "node:crypto";
import type { Signer } from "../../src/core/log/sign1.js";
import { nodePublicKey, nodeSigner } from "../../src/core/node/crypto.js";
import type { PublicKey } from "../../src/formats/crypto/public-key.js";

/**
 * A fresh P-256 key pair as the core takes it: `privateKey` a signer and `publicKey` a verifying
 * key (both on node:crypto, as the service's), with the KeyObjects for what needs them.
 */
export function es256KeyPair(): {
  privateKey: Signer;
  publicKey: PublicKey;
  objects: { privateKey: KeyObject; publicKey: KeyObject };
} {
  const objects = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { privateKey: nodeSigner(objects.privateKey), publicKey: nodePublicKey(objects.publicKey), objects };
}
