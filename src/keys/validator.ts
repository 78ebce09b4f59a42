import { createHash } from "node:crypto";
import type { Keyring } from "./keyring.js";

/** The validator's address: the chain's `miner`, derived from the validator's public key. */
export async function validatorAddress(keys: Keyring): Promise<string> {
  const key = await keys.get("validator", "ES256");
  const jwk = key.publicJwk as { x: string; y: string };
  return `0x${createHash("sha256").update(`${jwk.x}.${jwk.y}`).digest("hex").slice(0, 40)}`;
}
