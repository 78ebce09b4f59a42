/**
 * A lookup in the verifiable index, as the service answers it and an evidence bundle carries it
 * (docs/complete-trails.md, "A lookup"): which log entries are filed under a key in a log as of
 * a log size, with every proof a verifier needs and nothing else.
 */
export interface IndexLookup {
  format: "vcon-archivist/vindex-lookup";
  version: 1;
  /** The log: `tenant/<uuid>`. */
  log: string;
  /** The key, in its one spelling (`vcon://<uuid>`, `assets/<uuid>`, `issuer:…`, `subject:…`). */
  key: string;
  /** The log entries filed under the key below `revision.log_size`, in log order; [] when absent. */
  indices: number[];
  /**
   * RFC 9381 ECVRF-EDWARDS25519-SHA512-TAI proof (base64, 80 bytes) of the key's position; null
   * for a key placed by a hash (`assets/…`, `vcon://…`: `isHashedKey`).
   */
  vrf_proof: string | null;
  /** The trie proof of the position (`encodeProof`): present with the list's commitment, or absent. */
  proof: unknown;
  /** The revision the answer is made at: the output log's entry `seq`. */
  revision: {
    seq: number;
    log_size: number;
    /** Hex, 32 bytes each. */
    log_root: string;
    index_root: string;
    vrf_key: string;
  };
  /** The output log's signed checkpoint at `seq + 1` revisions, and the revision's inclusion proof in it (hex). */
  index_checkpoint: { note: string; inclusion: string[] };
  /** The log's signed checkpoint at `revision.log_size` entries. */
  log_checkpoint: string;
}

export const LOOKUP_FORMAT = "vcon-archivist/vindex-lookup";
