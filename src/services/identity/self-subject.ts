import { keccak_256 } from "@noble/hashes/sha3.js";
import type { Keyring } from "../../keys/keyring.js";
import type { Queryable } from "../../store/drivers/db.js";
import { ensureSubject } from "../../store/identity/subjects.js";

export const SELF_SUBJECT_ID = "00000000-0000-0000-0000-000000000000";

/** Ethereum-style address of an uncompressed secp256k1 point given as hex (`04…`). */
export function walletAddress(uncompressedHex: string): string {
  const point = Buffer.from(uncompressedHex.replace(/^0x/, ""), "hex");
  const digest = keccak_256(point.subarray(1));
  return `0x${Buffer.from(digest.subarray(12)).toString("hex")}`;
}

/** The tenancy's wallet (secp256k1) and tessera (X25519) public keys, as a subject shows them. */
export async function selfKeys(
  keys: Keyring,
  tenantId: string,
): Promise<{ wallet: string; tessera: string }> {
  const wallet = await keys.get(`wallet:${tenantId}`, "ES256K");
  const tessera = await keys.get(`tessera:${tenantId}`, "X25519");
  const jwk = wallet.publicJwk as { x: string; y: string };
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x, "base64url"),
    Buffer.from(jwk.y, "base64url"),
  ]);
  return {
    wallet: point.toString("hex"),
    tessera: Buffer.from((tessera.publicJwk as { x: string }).x, "base64url").toString("base64"),
  };
}

/**
 * Creates the Self subject of a tenancy once, with its own keys; it is CONFIRMED from the start.
 * The caller forgets the context's kept sharing answers (`ctx.caches.sharing`).
 */
export async function ensureSelfSubject(
  db: Queryable,
  keys: Keyring,
  tenantId: string,
  displayName: string,
): Promise<void> {
  const k = await selfKeys(keys, tenantId);
  await ensureSubject(db, {
    tenant_id: tenantId,
    id: SELF_SUBJECT_ID,
    display_name: displayName || "Self",
    wallet_pub_key: [k.wallet],
    tessera_pub_key: [k.tessera],
    wallet_address: [walletAddress(k.wallet)],
  });
}
