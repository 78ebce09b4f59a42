import { gunzipSync } from "node:zlib";
import { expansionCap, isOutputCapError } from "./inflate-limit.js";
import type { ScanLimits } from "./scan-limits.js";

/**
 * Why a gzip stream is bad: it expands past the cap (a bomb) or does not decompress
 * (malformed); undefined otherwise. Decompression stops at the cap, so a bomb costs at
 * most that much memory.
 */
export function gzipProblem(bytes: Uint8Array, limits: ScanLimits): string | undefined {
  const cap = expansionCap(bytes.length, limits);
  try {
    gunzipSync(bytes, { maxOutputLength: cap + 1 });
    return undefined;
  } catch (error) {
    if (isOutputCapError(error)) return `archive bomb: gzip expands to more than ${cap} bytes`;
    return "malformed gzip: does not decompress";
  }
}
