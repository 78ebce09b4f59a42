import { createPrivateKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Keyring } from "../../src/keys/keyring.js";

/**
 * The private key of a purpose's current key, read from the key directory's file as a thief of
 * that directory would: for tests that forge what only the service should be able to sign.
 */
export async function servicePrivateKey(
  keys: Keyring,
  purpose: string,
  alg: "ES256" | "RS256" | "Ed25519",
): Promise<KeyObject> {
  const [current] = await keys.history(purpose, alg);
  if (current?.holder !== "key-directory")
    throw new Error(`the ${purpose} key is not a file of the key directory`);
  return createPrivateKey(readFileSync(join(keys.dir.path, purpose, current.ref)));
}
