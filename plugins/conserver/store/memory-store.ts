import { parseVcon, type VconDocument } from "../vcon.js";
import type { VconStore } from "./vcon-store.js";

/** vCons held in memory: the webhook ingress puts the received vCon here for its chain. */
export class MemoryVconStore implements VconStore {
  private readonly docs = new Map<string, VconDocument>();

  /** Adds a parsed vCon under `uuid`. */
  set(uuid: string, doc: VconDocument): void {
    this.docs.set(uuid, doc);
  }

  async get(uuid: string): Promise<VconDocument | null> {
    return this.docs.get(uuid) ?? null;
  }

  async put(uuid: string, json: string): Promise<void> {
    this.docs.set(uuid, parseVcon(json));
  }
}
