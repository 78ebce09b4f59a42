import { decode, type TagDecoder } from "cborg";
import { CborError } from "./error.js";
import { scanCbor } from "./scan.js";
import { type CborValue, Tagged } from "./value.js";

/** Bounds and rules for decoding untrusted CBOR. */
export interface DecodeLimits {
  /** Largest input accepted, in bytes. */
  maxBytes: number;
  /** Deepest nesting of arrays, maps and tags. */
  maxDepth: number;
  /** Also require map keys in deterministic (bytewise) order. Off by default: published receipts are not. */
  canonicalKeys: boolean;
  /** Tag numbers accepted (each decodes to a `Tagged`). */
  tags: readonly number[];
}

/** COSE message tags (RFC 9052): Encrypt0, Mac0, Sign1, Encrypt, Mac, Sign. */
export const COSE_TAGS: readonly number[] = [16, 17, 18, 96, 97, 98];

export const DEFAULT_LIMITS: DecodeLimits = {
  maxBytes: 1024 * 1024,
  maxDepth: 32,
  canonicalKeys: false,
  tags: COSE_TAGS,
};

function tagDecoders(tags: readonly number[]): Record<number, TagDecoder> {
  const out: Record<number, TagDecoder> = {};
  for (const tag of tags) out[tag] = (content) => new Tagged(tag, content() as CborValue);
  return out;
}

const DEFAULT_TAG_DECODERS = tagDecoders(COSE_TAGS);

/**
 * Strict, bounded CBOR decoding of untrusted bytes: exactly one item, definite lengths, shortest
 * heads, no duplicate map keys, valid UTF-8, integers and false/true/null only, depth and size
 * limits. Every map decodes to a `Map` (key types survive, and no prototype can be polluted).
 */
export function decodeCbor(bytes: Uint8Array, limits: Partial<DecodeLimits> = {}): CborValue {
  const rules = { ...DEFAULT_LIMITS, ...limits };
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw new CborError("CBOR_EMPTY", "empty input");
  if (bytes.length > rules.maxBytes)
    throw new CborError("CBOR_TOO_LARGE", `input larger than ${rules.maxBytes} bytes`);
  scanCbor(bytes, { maxDepth: rules.maxDepth, sortedKeys: rules.canonicalKeys, tags: new Set(rules.tags) });
  try {
    return decode(bytes, {
      useMaps: true,
      rejectDuplicateMapKeys: true,
      allowIndefinite: false,
      allowUndefined: false,
      allowInfinity: false,
      allowNaN: false,
      allowBigInt: true,
      strict: true,
      tags: rules.tags === COSE_TAGS ? DEFAULT_TAG_DECODERS : tagDecoders(rules.tags),
    }) as CborValue;
  } catch (err) {
    throw new CborError("CBOR_MALFORMED", `malformed CBOR: ${err instanceof Error ? err.message : String(err)}`);
  }
}
