import { BlobFormatError } from "./blob-format-error.js";
import { isDocumentMime } from "./document-types.js";
import { containsEicar } from "./eicar.js";
import { executableKind, isRunnableName } from "./executable.js";
import { gzipProblem } from "./gzip-check.js";
import { isGzip, isZip } from "./magic.js";
import type { ScanLimits } from "./scan-limits.js";
import { readZipDirectory, type ZipEntry } from "./zip-directory.js";
import { inflateEntry } from "./zip-entry.js";

/** What a scan of nested archives shares: the limits and the budgets spent so far. */
export interface ZipScan {
  limits: ScanLimits;
  /** Declared uncompressed bytes of every archive met, nested ones included. */
  declared: number;
  /** Bytes inflated to look inside entries. */
  inspected: number;
}

/** Header-only checks: entry count, total size and compression ratio. */
function bombProblem(bytes: Uint8Array, entries: ZipEntry[], scan: ZipScan): string | undefined {
  const { limits } = scan;
  if (entries.length > limits.maxZipEntries) {
    return `archive bomb: ${entries.length} ZIP entries, more than ${limits.maxZipEntries}`;
  }
  const total = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  scan.declared += total;
  if (scan.declared > limits.maxUncompressedBytes) {
    return `archive bomb: expands to more than ${limits.maxUncompressedBytes} bytes`;
  }
  const ratio = total / Math.max(1, bytes.length);
  if (total > limits.ratioFloorBytes && ratio > limits.maxCompressionRatio) {
    return `archive bomb: compression ratio ${Math.round(ratio)}:1, more than ${limits.maxCompressionRatio}:1`;
  }
  return undefined;
}

/** The bytes of an entry for inspection; undefined to skip it (unreadable by design, or budget spent). */
function inspectable(bytes: Uint8Array, entry: ZipEntry, scan: ZipScan): Uint8Array | string | undefined {
  if (scan.inspected + entry.uncompressedSize > scan.limits.maxInspectBytes) return undefined;
  try {
    const data = inflateEntry(bytes, entry);
    scan.inspected += data.length;
    return data;
  } catch (error) {
    if (!(error instanceof BlobFormatError)) throw error;
    if (error.code === "zip_encrypted" || error.code === "zip_unsupported") return undefined;
    return error.code === "inflate_limit"
      ? `archive bomb: ${error.message}`
      : `malformed ZIP: ${error.message}`;
  }
}

/** Why one entry's content is bad: EICAR, an executable inside a document, a bad nested archive. */
function entryProblem(entry: ZipEntry, data: Uint8Array, document: boolean, scan: ZipScan, depth: number) {
  if (containsEicar(data)) return `EICAR test file in ZIP entry ${entry.name}`;
  const kind = executableKind(data);
  if (document && kind !== undefined && kind !== "script") {
    return `${kind} executable hidden in document: ${entry.name}`;
  }
  if (isZip(data)) {
    if (depth + 1 > scan.limits.maxZipDepth)
      return `archive bomb: ZIP nested more than ${scan.limits.maxZipDepth} deep`;
    const inner = zipProblem(data, "application/zip", scan, depth + 1);
    return inner === undefined ? undefined : `${inner} (in ${entry.name})`;
  }
  return isGzip(data) ? gzipProblem(data, scan.limits) : undefined;
}

/**
 * Why a ZIP archive is bad, or undefined: malformed structure, a bomb (too many entries,
 * too large, too compressed, lying sizes, nested too deep), EICAR inside, or, under a
 * document type, an executable inside. `depth` is 0 for the upload itself.
 */
export function zipProblem(
  bytes: Uint8Array,
  declaredMime: string,
  scan: ZipScan,
  depth = 0,
): string | undefined {
  let entries: ZipEntry[];
  try {
    entries = readZipDirectory(bytes);
  } catch (error) {
    if (error instanceof BlobFormatError) return `malformed ZIP: ${error.message}`;
    throw error;
  }
  const bomb = bombProblem(bytes, entries, scan);
  if (bomb !== undefined) return bomb;
  const document = isDocumentMime(declaredMime);
  for (const entry of entries) {
    if (document && isRunnableName(entry.name)) return `executable hidden in document: ${entry.name}`;
    const data = inspectable(bytes, entry, scan);
    if (typeof data === "string") return data;
    const problem = data === undefined ? undefined : entryProblem(entry, data, document, scan, depth);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
