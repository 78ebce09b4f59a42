import type { Keyring } from "../../keys/keyring.js";
import { selfKeys, walletAddress } from "./self-subject.js";

/** The tenancy's wallet address (the `from` and `owner` of its records), computed once per keyring. */
export function tenantWalletAddress(keys: Keyring, tenantId: string): Promise<string> {
  return keys.derived(`wallet-address:${tenantId}`, (k) =>
    selfKeys(k, tenantId).then((s) => walletAddress(s.wallet)),
  );
}
