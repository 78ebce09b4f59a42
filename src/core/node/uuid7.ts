import { randomFillSync } from "node:crypto";

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

// Random bytes drawn a pool at a time: one `randomFillSync` per 512 identities, not per identity.
const POOL_IDS = 512;
const pool = Buffer.alloc(POOL_IDS * 10);
let next = POOL_IDS;
// The 48-bit field's last millisecond (year 10889).
const MAX_MS = 2 ** 48 - 1;

/**
 * A UUID version 7 (RFC 9562, §5.7) for `ms`: 48 bits of Unix milliseconds, then 74 random bits.
 * Identities made in time order sit next to each other in a B-tree: a record's row, its queue
 * entry and its log entry are appended to their indexes' right-hand pages, where version 4's
 * random identities touched a page anywhere in each index (and, after a checkpoint, wrote a
 * full-page image of it). The time it shows is when the record was made (an event's
 * `timestamp_accepted`, an asset's creation), which its readers can read anyway (docs/api.md,
 * "Identities"); 74 random bits leave it as unguessable as any identity need be.
 */
export function uuid7(ms: number = Date.now()): string {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const r = next++ * 10;
  const t = Math.min(MAX_MS, Math.max(0, Math.floor(ms)));
  const hi = Math.floor(t / 0x1_0000_0000);
  const lo = t >>> 0;
  return (
    HEX[(hi >>> 8) & 0xff]! +
    HEX[hi & 0xff]! +
    HEX[lo >>> 24]! +
    HEX[(lo >>> 16) & 0xff]! +
    "-" +
    HEX[(lo >>> 8) & 0xff]! +
    HEX[lo & 0xff]! +
    "-" +
    HEX[0x70 | (pool[r]! & 0x0f)]! +
    HEX[pool[r + 1]!]! +
    "-" +
    HEX[0x80 | (pool[r + 2]! & 0x3f)]! +
    HEX[pool[r + 3]!]! +
    "-" +
    HEX[pool[r + 4]!]! +
    HEX[pool[r + 5]!]! +
    HEX[pool[r + 6]!]! +
    HEX[pool[r + 7]!]! +
    HEX[pool[r + 8]!]! +
    HEX[pool[r + 9]!]!
  );
}
