import type { Keyring } from "../store/keyring.js";
import { selfKeys, walletAddress } from "./self-subject.js";

const cache = new Map<string, Promise<string>>();

/** The tenancy's wallet address (the `from` and `owner` of its records), computed once per process. */
export function tenantWalletAddress(keys: Keyring, tenantId: string): Promise<string> {
  let p = cache.get(tenantId);
  if (!p) {
    p = selfKeys(keys, tenantId).then((k) => walletAddress(k.wallet));
    cache.set(tenantId, p);
  }
  return p;
}
