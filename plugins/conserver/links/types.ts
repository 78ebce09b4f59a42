import type { Logger } from "pino";
import type { DeliveryJob } from "../delivery/job.js";
import type { JobQueue } from "../queue/types.js";
import type { VconStore } from "../store/vcon-store.js";
import type { HashMode } from "../vcon.js";
import type { ConsentSource } from "./consent-source.js";

/** Signs a template-0.3.0 event's attributes as a SCITT hashed signed statement (COSE_Sign1). */
export interface StatementSigner {
  sign(eventAttributes: Record<string, string>): Promise<Uint8Array>;
}

/** What a transparency service answered to a registration. */
export interface Registration {
  entryId: string;
  receipt: Uint8Array;
}

/** Registers a signed statement with a transparency service (SCRAPI `POST /entries`) and returns its receipt. */
export interface Registrar {
  register(statement: Uint8Array): Promise<Registration>;
}

/** What a link needs besides its options; built by the runtime that runs the chain. */
export interface LinkContext {
  store: VconStore;
  log: Logger;
  /** Hash mode when a link's options name none: `python-json` for Redis input, `raw` for webhook bodies. */
  defaultHashMode: HashMode;
  deliveryQueue?: JobQueue<DeliveryJob>;
  scitt?: { signer: StatementSigner; registrar: Registrar };
  /** Where the consent gate asks a vCon's consent (the runtime's: one client per backend). */
  consent?: ConsentSource;
  now?: () => Date;
}

/** Link options as written in the config (the Python conserver may pass none at all). */
export type LinkOptions = Record<string, unknown> | null | undefined;

/**
 * A link, as the conserver's Python contract: `run` returns the uuid to continue the chain with,
 * or null to stop it quietly; it throws to send the vCon to the dead-letter list.
 */
export interface LinkModule {
  defaultOptions: Record<string, unknown>;
  run(vconUuid: string, linkName: string, options: LinkOptions, ctx: LinkContext): Promise<string | null>;
}
