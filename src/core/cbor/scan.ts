import { isUtf8 } from "node:buffer";
import { CborError } from "./error.js";
import { type Head, readHead } from "./head.js";

/** What the structural check enforces beyond well-formedness. */
export interface ScanRules {
  maxDepth: number;
  /** Require map keys in RFC 8949 bytewise order (the received form is then canonical). */
  sortedKeys: boolean;
  /** Tag numbers accepted. */
  tags: ReadonlySet<number>;
}

interface Frame {
  /** Data items still expected (a map counts keys and values). */
  left: number;
  /** Encodings of the keys seen so far, for maps only. */
  keys?: Set<string>;
  lastKey?: string;
  keyStart: number;
}

const SIMPLE_OK = new Set([20, 21, 22]); // false, true, null

function simple(h: Head): void {
  if (h.info < 24 && SIMPLE_OK.has(h.info)) return;
  if (h.info === 23) throw new CborError("undefined is not accepted");
  if (h.info >= 25) throw new CborError("floating-point values are not accepted");
  throw new CborError("unassigned simple value");
}

/** One item: either where it ends (scalars, strings, empty containers) or the frame it opens. */
function step(bytes: Uint8Array, h: Head, rules: ScanRules): number | Frame {
  const rest = bytes.length - h.next;
  switch (h.major) {
    case 0:
    case 1:
      return h.next;
    case 2:
    case 3:
      if (h.arg > rest) throw new CborError("string runs past the end of the input");
      if (h.major === 3 && !isUtf8(bytes.subarray(h.next, h.next + h.arg)))
        throw new CborError("text string is not valid UTF-8");
      return h.next + h.arg;
    case 4:
    case 5: {
      const items = h.major === 4 ? h.arg : h.arg * 2;
      if (items > rest) throw new CborError("container runs past the end of the input");
      if (items === 0) return h.next;
      return h.major === 4 ? { left: items, keyStart: 0 } : { left: items, keys: new Set(), keyStart: 0 };
    }
    case 6:
      if (!rules.tags.has(h.arg)) throw new CborError(`tag ${h.arg} is not accepted`);
      return { left: 1, keyStart: 0 };
    default:
      simple(h);
      return h.next;
  }
}

function recordKey(bytes: Uint8Array, map: Frame, end: number, sorted: boolean): void {
  const key = Buffer.from(bytes.buffer, bytes.byteOffset + map.keyStart, end - map.keyStart).toString(
    "latin1",
  );
  if (map.keys?.has(key)) throw new CborError("duplicate map key");
  // latin1 keeps one code unit per byte, so string order is RFC 8949 bytewise order.
  if (sorted && map.lastKey !== undefined && key < map.lastKey)
    throw new CborError("map keys are not in deterministic order");
  map.keys?.add(key);
  map.lastKey = key;
}

/** Closes every container the item ending at `end` completes; true once the top-level item is done. */
function close(bytes: Uint8Array, stack: Frame[], end: number, sorted: boolean): boolean {
  for (let top = stack.at(-1); top; top = stack.at(-1)) {
    if (top.keys && top.left % 2 === 0) recordKey(bytes, top, end, sorted);
    top.left--;
    if (top.left > 0) return false;
    stack.pop();
  }
  return true;
}

/**
 * Checks one CBOR item occupying all of `bytes` without building it, iteratively (hostile nesting
 * cannot exhaust the stack): definite lengths, shortest heads, valid UTF-8, no duplicate keys, depth.
 */
export function scanCbor(bytes: Uint8Array, rules: ScanRules): void {
  const stack: Frame[] = [];
  let pos = 0;
  for (;;) {
    const top = stack.at(-1);
    if (top?.keys && top.left % 2 === 0) top.keyStart = pos;
    const h = readHead(bytes, pos);
    const r = step(bytes, h, rules);
    if (typeof r !== "number") {
      stack.push(r);
      if (stack.length > rules.maxDepth) throw new CborError(`nesting deeper than ${rules.maxDepth}`);
      pos = h.next;
      continue;
    }
    pos = r;
    if (close(bytes, stack, pos, rules.sortedKeys)) break;
  }
  if (pos !== bytes.length) throw new CborError(`${bytes.length - pos} bytes after the data item`);
}
