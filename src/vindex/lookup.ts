import { CodedError } from "../formats/coded-error.js";
import { toBase64, toHex } from "../formats/crypto/bytes.js";
import * as rfc9162 from "../formats/rfc9162/index.js";
import { chainOf, encodeProof, valueCommitment } from "../formats/vindex/index.js";
import type { IndexLookup } from "../formats/vindex/lookup-format.js";
import { LOOKUP_FORMAT } from "../formats/vindex/lookup-format.js";
import type { Queryable } from "../store/drivers/db.js";
import { checkpointAt } from "../store/ledger/tlog-checkpoints.js";
import { indexCheckpoint, type RevisionRow } from "../store/ledger/vindex.js";
import type { IndexStates } from "./index-states.js";
import { revisionInclusion } from "./output-log.js";
import type { IndexPositions } from "./positions.js";

/** Why a lookup cannot be answered now: no revision yet, or rows that disagree with the signed index. */
export class LookupUnavailable extends CodedError<"INDEX_UNAVAILABLE"> {
  readonly code = "INDEX_UNAVAILABLE";
}

/**
 * The newest revision's index and what a lookup of `position` reads of its trie, taken in the same
 * turn as the revision is: a seal revising the index later changes the trie, not what was taken.
 */
async function atRevision(db: Queryable, tenantId: string, states: IndexStates, position: Uint8Array) {
  for (let attempt = 0; attempt < 3; attempt++) {
    const { index, revision } = await states.current(db, tenantId);
    if (!revision) throw new LookupUnavailable(`the index of log tenant/${tenantId} has no revision yet`);
    // A revision may have filed into it between `current` and here: it is then taken again.
    if (rfc9162.sameHash(index.root(), revision.index_root))
      return { index, revision, filed: index.trie.get(position), proof: index.trie.prove(position) };
  }
  throw new LookupUnavailable("the index is being revised; try again");
}

/** The signed material a lookup at `revision` carries: the same for every key, so read once per revision. */
async function readMaterial(db: Queryable, tenantId: string, revision: RevisionRow) {
  const [indexCp, inclusion, logCp] = await Promise.all([
    indexCheckpoint(db, tenantId, revision.seq + 1),
    revisionInclusion(db, tenantId, revision.seq, revision.seq + 1),
    checkpointAt(db, tenantId, revision.log_size),
  ]);
  if (!indexCp || !logCp)
    throw new LookupUnavailable(`the checkpoints of revision ${revision.seq} of the index are not stored`);
  return { indexCp, inclusion, logCp };
}

/**
 * The index's answer for a key in a tenancy's log, at its newest revision: the entries filed
 * under it and every proof (`IndexLookup`). The entries are the index's list in memory (read
 * from rows that gave the signed root) and must give the commitment the signed trie holds.
 */
export async function lookUp(
  db: Queryable,
  tenantId: string,
  key: string,
  states: IndexStates,
  positions: IndexPositions,
): Promise<IndexLookup> {
  const log = `tenant/${tenantId}`;
  const { position, salt } = positions.of(log, key);
  const { index, revision, filed, proof } = await atRevision(db, tenantId, states, position);
  // The list as of the revision (one made since appends only above its size), checked against
  // the signed trie's commitment all the same: memory that disagrees with it is not answered from.
  const indices = index.indicesBelow(position, revision.log_size);
  if (!holds(filed, indices.length > 0 ? valueCommitment(salt, chainOf(indices)) : undefined))
    throw new LookupUnavailable("the index's list for this key does not give what its signed revision holds");
  const { indexCp, inclusion, logCp } = await states.perRevision(tenantId, revision.seq, () =>
    readMaterial(db, tenantId, revision),
  );
  return {
    format: LOOKUP_FORMAT,
    version: 1,
    log,
    key,
    indices,
    vrf_proof: proofText(positions.prove(log, key)),
    proof: encodeProof(proof),
    revision: {
      seq: revision.seq,
      log_size: revision.log_size,
      log_root: toHex(revision.log_root),
      index_root: toHex(revision.index_root),
      vrf_key: toHex(revision.vrf_key),
    },
    index_checkpoint: { note: indexCp.note, inclusion: inclusion.map(toHex) },
    log_checkpoint: logCp.note,
  };
}

function holds(filed: Uint8Array | undefined, commitment: Uint8Array | undefined): boolean {
  return commitment === undefined
    ? filed === undefined
    : filed !== undefined && rfc9162.sameHash(filed, commitment);
}

const proofText = (pi: Uint8Array | null): string | null => (pi === null ? null : toBase64(pi));
