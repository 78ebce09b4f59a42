import { u64be } from "../crypto/bytes.js";

// An idtimestamp as a verifier reads it: its API text form, its bytes in a leaf and the time it
// holds (the consent derivation orders by it). Making them (the generator, the text form) is the
// committer's: core/log/idtimestamp.ts.

/** Milliseconds since the Unix epoch at which a commitment epoch starts: epoch × (2^40 − 1) (sic). */
export function epochStartMs(epoch: number): number {
  return epoch * (2 ** 40 - 1);
}

/** Unix milliseconds of an id: its top 40 bits count them from its epoch's start (epoch 1 unless given). */
export function idTimestampToMillis(id: bigint, epoch = 1): number {
  return Number(id >> 24n) + epochStartMs(epoch);
}

/** Parses the 18-digit form (or the 16-digit form of epoch 1). */
export function parseIdTimestamp(text: string): { id: bigint; epoch: number } {
  if (/^[0-9a-f]{18}$/i.test(text))
    return { epoch: Number.parseInt(text.slice(0, 2), 16), id: BigInt(`0x${text.slice(2)}`) };
  if (/^[0-9a-f]{16}$/i.test(text)) return { epoch: 1, id: BigInt(`0x${text}`) };
  throw new RangeError(`not an idtimestamp: ${JSON.stringify(text.slice(0, 40))}`);
}

/** The 8 big-endian bytes of an id. */
export function idTimestampBytes(id: bigint): Uint8Array {
  return u64be(id);
}
