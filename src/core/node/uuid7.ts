import { randomFillSync } from "node:crypto";
import { toHex } from "../../formats/crypto/bytes.js";

// Random bytes drawn a pool at a time: one `randomFillSync` per 512 identities, not per identity.
const POOL_IDS = 512;
const pool = new Uint8Array(POOL_IDS * 10);
let next = POOL_IDS;
// The 48-bit field's last millisecond (year 10889).
const MAX_MS = 2 ** 48 - 1;
// One identity's 16 bytes, written and read synchronously.
const scratch = new Uint8Array(16);

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
  let t = Math.min(MAX_MS, Math.max(0, Math.floor(ms)));
  for (let i = 5; i >= 0; i--) {
    scratch[i] = t % 256;
    t = Math.floor(t / 256);
  }
  for (let i = 0; i < 10; i++) scratch[6 + i] = pool[r + i] as number;
  scratch[6] = 0x70 | ((scratch[6] as number) & 0x0f);
  scratch[8] = 0x80 | ((scratch[8] as number) & 0x3f);
  const h = toHex(scratch);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
