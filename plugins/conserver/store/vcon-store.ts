import type { VconDocument } from "../vcon.js";

/** Where links read (and write back) vCons by uuid: `vcon:<uuid>` in Redis, or a request's body. */
export interface VconStore {
  get(uuid: string): Promise<VconDocument | null>;
  /** Replaces the stored vCon with this JSON text (keeping any expiry). */
  put(uuid: string, json: string): Promise<void>;
}
