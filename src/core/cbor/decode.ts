import { decode as cborgDecode } from "cborg";
import { type CborValue, Tagged } from "./encode.js";

export class CborError extends Error {
  readonly code = "CBOR";
}

export interface DecodeLimits {
  /** Largest input accepted. */
  maxBytes: number;
  /** Deepest nesting of arrays, maps and tags. */
  maxDepth: number;
}

export const DEFAULT_LIMITS: DecodeLimits = { maxBytes: 1024 * 1024, maxDepth: 32 };

/** Nesting depth from the raw bytes, without recursion (so hostile nesting cannot exhaust the stack). */
function checkDepth(bytes: Uint8Array, maxDepth: number): void {
  const pending: number[] = [];
  let i = 0;
  const arg = (info: number): number => {
    if (info < 24) return info;
    const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : -1;
    if (size < 0) throw new CborError("indefinite lengths and reserved values are not allowed");
    let n = 0;
    for (let k = 0; k < size; k++) n = n * 256 + (bytes[i + k] ?? 0);
    i += size;
    return n;
  };
  while (i < bytes.length) {
    const b = bytes[i++] as number;
    const major = b >> 5;
    const n = major === 7 ? ((b & 31) >= 24 ? arg(b & 31) && 0 : 0) : arg(b & 31);
    if (major === 2 || major === 3) i += n;
    let open = major === 4 ? n : major === 5 ? n * 2 : major === 6 ? 1 : 0;
    if (open > 0) {
      pending.push(open);
      if (pending.length > maxDepth) throw new CborError(`nesting deeper than ${maxDepth}`);
      continue;
    }
    while (pending.length) {
      open = (pending.pop() as number) - 1;
      if (open > 0) {
        pending.push(open);
        break;
      }
    }
  }
}

function untag(tag: number) {
  return (decodeContent: () => unknown) => new Tagged(tag, decodeContent() as CborValue);
}

const TAGS: Record<number, ReturnType<typeof untag>> = {
  18: untag(18),
  24: untag(24),
  16: untag(16),
  17: untag(17),
  96: untag(96),
  98: untag(98),
};

/** Strict, bounded CBOR decoding: no duplicate keys, no indefinite lengths, no trailing bytes, depth and size limits. */
export function decodeCbor(bytes: Uint8Array, limits: Partial<DecodeLimits> = {}): CborValue {
  const { maxBytes, maxDepth } = { ...DEFAULT_LIMITS, ...limits };
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw new CborError("empty input");
  if (bytes.length > maxBytes) throw new CborError(`input larger than ${maxBytes} bytes`);
  checkDepth(bytes, maxDepth);
  try {
    return cborgDecode(bytes, {
      useMaps: true,
      rejectDuplicateMapKeys: true,
      allowIndefinite: false,
      allowUndefined: false,
      allowInfinity: false,
      allowNaN: false,
      strict: true,
      tags: Object.assign([], TAGS) as never,
    }) as CborValue;
  } catch (err) {
    if (err instanceof CborError) throw err;
    throw new CborError(`malformed CBOR: ${err instanceof Error ? err.message : String(err)}`);
  }
}
