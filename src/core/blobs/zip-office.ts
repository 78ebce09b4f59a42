import { BlobFormatError } from "./blob-format-error.js";
import { CONTENT_TYPES_ENTRY, ooxmlMime } from "./ooxml.js";
import { readZipDirectory } from "./zip-directory.js";
import { inflateEntry } from "./zip-entry.js";
import { localEntryNames } from "./zip-local.js";

// A real [Content_Types].xml is a few kilobytes; a huge one is not worth inflating to sniff.
const MAX_CONTENT_TYPES_BYTES = 1 << 20;
const utf8 = new TextDecoder("utf-8");

/** The content types document of a readable archive, if it has a small, readable one. */
function contentTypesXml(bytes: Uint8Array, names: string[]): string | undefined {
  const entries = readZipDirectory(bytes);
  names.push(...entries.map((entry) => entry.name));
  const entry = entries.find((e) => e.name === CONTENT_TYPES_ENTRY);
  if (entry === undefined || entry.uncompressedSize > MAX_CONTENT_TYPES_BYTES) return undefined;
  try {
    return utf8.decode(inflateEntry(bytes, entry));
  } catch (error) {
    if (error instanceof BlobFormatError) return undefined;
    throw error;
  }
}

/**
 * The OOXML media type of a ZIP archive: from the central directory and the content
 * types when `bytes` is the whole archive, from the local headers when it is only a head.
 */
export function officeMimeOfZip(bytes: Uint8Array): string | undefined {
  const names: string[] = [];
  try {
    const xml = contentTypesXml(bytes, names);
    return ooxmlMime(names, xml);
  } catch (error) {
    if (!(error instanceof BlobFormatError)) throw error;
    return ooxmlMime(localEntryNames(bytes));
  }
}
