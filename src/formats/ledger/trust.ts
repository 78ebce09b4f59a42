import { concatBytes, fromBase64, toBase64 } from "../crypto/bytes.js";
import { type Sha256, sha256 } from "../crypto/sha256.js";

/** The first seal covering a log entry, with its anchoring once the anchorer has put it in a block. */
export interface CoveringSeal {
  mmr_size: number;
  timestamp_ms: number;
  idtimestamp: string;
  /** Peaks of the sealed MMR, base64. */
  peaks: string[];
  anchored_block: number | null;
  anchor_block_hash: string | null;
  anchor_tx_hash: string | null;
  anchor_tx_index: number | null;
  /** False while witnesses are configured and no quorum has cosigned a checkpoint covering the seal. */
  witnessed?: boolean;
  /** `sealRoot(peaks)`, when the reader computed it (the store does, with node:crypto's hash). */
  root?: string;
}

/** SHA-256 over a seal's peaks in order, base64: `merklelog_entry.confirm.root`. */
export function sealRoot(peaks: string[], hash: Sha256 = sha256): string {
  return toBase64(hash(concatBytes(peaks.map(fromBase64))));
}

/**
 * Trust of a committed entry: CONFIRMED once a seal covers it, UNEQUIVOCAL once that seal is
 * anchored and, where witnesses are configured, a quorum of them cosigned a checkpoint covering it.
 */
export function committedTrust(seal: CoveringSeal | null): "COMMITTED" | "CONFIRMED" | "UNEQUIVOCAL" {
  if (!seal) return "COMMITTED";
  return seal.anchored_block === null || seal.witnessed === false ? "CONFIRMED" : "UNEQUIVOCAL";
}

/** `merklelog_entry.confirm`: the seal's MMR state; `root` is SHA-256 over its peaks in order. */
export function confirmEntry(seal: CoveringSeal): Record<string, string> {
  return {
    mmr_size: String(seal.mmr_size),
    root: seal.root ?? sealRoot(seal.peaks),
    timestamp: String(seal.timestamp_ms),
    idtimestamp: seal.idtimestamp,
    signed_tree_head: "",
  };
}

/** `merklelog_entry.unequivocal`: the block and transaction that anchor the seal, or null before that. */
export function unequivocalEntry(seal: CoveringSeal): Record<string, string> | null {
  if (seal.anchored_block === null) return null;
  return {
    block_number: String(seal.anchored_block),
    block_hash: seal.anchor_block_hash ?? "",
    transaction_hash: seal.anchor_tx_hash ?? "",
    mmr_size: String(seal.mmr_size),
  };
}
