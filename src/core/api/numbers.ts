import { badRequest } from "../../errors/api-error.js";

const UINT64_MAX = (1n << 64n) - 1n;

/**
 * A decimal (or, with `hex`, `0x` hexadecimal) unsigned 64-bit integer, the range of the log's
 * indices and sizes and of block numbers; anything else is a 400 naming the parameter.
 */
export function parseUint64(raw: string, name: string, opts: { hex?: boolean } = {}): bigint {
  const ok = /^\d{1,20}$/.test(raw) || (opts.hex === true && /^0x[0-9a-f]{1,16}$/i.test(raw));
  const n = ok ? BigInt(raw) : -1n;
  if (n < 0n || n > UINT64_MAX)
    throw badRequest(`${name} must be an unsigned 64-bit integer${opts.hex ? " (decimal or 0x hex)" : ""}`);
  return n;
}

/**
 * A uint64 as the number the log and the chain count in, or `undefined` past 2^53: no log
 * or chain of ours reaches that far, so such a position names nothing (a 404 or an empty
 * answer, never a database range error).
 */
export function reachable(n: bigint): number | undefined {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : undefined;
}
