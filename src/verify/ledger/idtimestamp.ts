import { u64be } from "../crypto/bytes.js";

// An idtimestamp as a verifier reads it: its API text form and its bytes in a leaf. Making them
// (the generator, the text form, the time an id holds) is the committer's: core/log/idtimestamp.ts.

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
