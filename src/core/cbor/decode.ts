import { decode as cborgDecode } from "cborg";
import { type CborValue, Tagged } from "./encode.js";
import { CborError } from "./error.js";
import { scanCbor } from "./scan.js";

export { CborError };

export interface DecodeLimits {
  /** Largest input accepted. */
  maxBytes: number;
  /** Deepest nesting of arrays, maps and tags. */
  maxDepth: number;
}

export const DEFAULT_LIMITS: DecodeLimits = { maxBytes: 1024 * 1024, maxDepth: 32 };

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

const TAG_SET = new Set(Object.keys(TAGS).map(Number));

/** Strict, bounded CBOR decoding: no duplicate keys, no indefinite lengths, no trailing bytes, depth and size limits. */
export function decodeCbor(bytes: Uint8Array, limits: Partial<DecodeLimits> = {}): CborValue {
  const { maxBytes, maxDepth } = { ...DEFAULT_LIMITS, ...limits };
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw new CborError("empty input");
  if (bytes.length > maxBytes) throw new CborError(`input larger than ${maxBytes} bytes`);
  // cborg alone lets duplicate byte-string/array keys, invalid UTF-8 and floats through.
  scanCbor(bytes, { maxDepth, sortedKeys: false, tags: TAG_SET });
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
