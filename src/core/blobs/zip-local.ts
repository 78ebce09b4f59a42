import { view } from "./bytes.js";

const LOCAL_SIGNATURE = 0x04034b50;
const DATA_DESCRIPTOR = 0x8;
const names = new TextDecoder("utf-8");

/**
 * Names of the entries whose local headers lie wholly in `head`, walking from the start.
 * Used when only the first bytes of an upload are at hand: stops at the first header it
 * cannot step over (sizes deferred to a data descriptor, or data past the end of `head`).
 */
export function localEntryNames(head: Uint8Array): string[] {
  const data = view(head);
  const found: string[] = [];
  for (let at = 0; at + 30 <= head.length && data.getUint32(at, true) === LOCAL_SIGNATURE; ) {
    const nameLength = data.getUint16(at + 26, true);
    const extraLength = data.getUint16(at + 28, true);
    if (at + 30 + nameLength > head.length) break;
    found.push(names.decode(head.subarray(at + 30, at + 30 + nameLength)));
    const size = data.getUint32(at + 18, true);
    if (data.getUint16(at + 6, true) & DATA_DESCRIPTOR && size === 0) break;
    at += 30 + nameLength + extraLength + size;
  }
  return found;
}
