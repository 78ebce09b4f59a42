import type { Logger } from "pino";
import { nativeVindexOutput } from "../core/node/vrf.js";
import type { Keyring } from "../keys/keyring.js";
import { FreshIndexFacts } from "./fresh-facts.js";
import { type IndexBasis, IndexStates } from "./index-states.js";
import { IndexWriter, revisionIntervalMs } from "./index-writer.js";
import { IndexPositions } from "./positions.js";

/** A process's verifiable index: its tenancies' indexes in memory, their positions, and the seal's writer. */
export interface Vindex {
  states: IndexStates;
  positions: IndexPositions;
  /** What the committer hands the revisions of the entries it appended. */
  facts: FreshIndexFacts;
  writer: IndexWriter;
}

/** The process's index, over the VRF key of the key directory and the log guard's signed basis. */
export async function openVindex(
  keys: Pick<Keyring, "vrfSecret">,
  basis: IndexBasis | undefined,
  log: Logger,
  sealIntervalMs: number,
): Promise<Vindex> {
  const states = new IndexStates(basis);
  const positions = new IndexPositions(nativeVindexOutput(await keys.vrfSecret()));
  const facts = new FreshIndexFacts();
  return {
    states,
    positions,
    facts,
    writer: new IndexWriter({ states, positions, facts }, log, revisionIntervalMs(sealIntervalMs)),
  };
}
