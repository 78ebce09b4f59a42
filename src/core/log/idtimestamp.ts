// Making idtimestamps is the committer's work; a verifier only reads one back (parsing, the
// bytes in a leaf and the time an id holds stay in the audit room's ledger/idtimestamp.ts).
import { epochStartMs } from "../../formats/ledger/idtimestamp.js";

const SEQ_BITS = 16n;
const LOW_BITS = 24n;

/**
 * Snowflake ids for one log: 40 bits of milliseconds since the epoch start, then 8 bits
 * of worker and 16 of sequence. Strictly increasing, even for many ids in one
 * millisecond or a clock that steps back (it then runs ahead on the last id's time).
 */
export class IdTimestampGenerator {
  private last = 0n;

  constructor(
    private readonly worker: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(worker) || worker < 0 || worker > 255)
      throw new RangeError("worker must be 0..255");
  }

  /** The next id (epoch 1 layout). */
  next(): bigint {
    const ms = BigInt(this.now() - epochStartMs(1));
    let id = (ms << LOW_BITS) | (BigInt(this.worker) << SEQ_BITS);
    if (id <= this.last) {
      id = this.last + 1n;
      // Sequence exhausted within the millisecond: move to the next one.
      if ((id & 0xffffn) === 0n)
        id = (((this.last >> LOW_BITS) + 1n) << LOW_BITS) | (BigInt(this.worker) << SEQ_BITS);
    }
    this.last = id;
    return id;
  }
}

/** API text form: 18 hex digits, the epoch byte first. */
export function formatIdTimestamp(id: bigint, epoch = 1): string {
  return epoch.toString(16).padStart(2, "0") + id.toString(16).padStart(16, "0");
}
