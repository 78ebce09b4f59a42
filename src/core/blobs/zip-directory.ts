import { BlobFormatError } from "./blob-format-error.js";
import { view } from "./bytes.js";
import { findEndOfDirectory } from "./zip-end.js";

/** One file of a ZIP archive as its central directory describes it. */
export interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localOffset: number;
}

const CENTRAL_SIGNATURE = 0x02014b50;
const MAX32 = 0xffffffff;
const names = new TextDecoder("utf-8");

const malformed = (message: string) => new BlobFormatError("zip_malformed", message);

/** Sizes and offset that the ZIP64 extra field (id 1) carries for fields saturated at 0xFFFFFFFF. */
function applyZip64(entry: ZipEntry, data: DataView, start: number, end: number): void {
  for (let at = start; at + 4 <= end; ) {
    const id = data.getUint16(at, true);
    const size = data.getUint16(at + 2, true);
    let field = at + 4;
    const next = () => {
      if (field + 8 > at + 4 + size || field + 8 > end) throw malformed("truncated ZIP64 extra field");
      const value = Number(data.getBigUint64(field, true));
      field += 8;
      return value;
    };
    if (id === 1) {
      if (entry.uncompressedSize === MAX32) entry.uncompressedSize = next();
      if (entry.compressedSize === MAX32) entry.compressedSize = next();
      if (entry.localOffset === MAX32) entry.localOffset = next();
      return;
    }
    at += 4 + size;
  }
}

/** Parses one central directory record at `at`; returns it and where the next one starts. */
function readCentralRecord(data: DataView, at: number, limit: number): [ZipEntry, number] {
  if (at + 46 > limit || data.getUint32(at, true) !== CENTRAL_SIGNATURE) {
    throw malformed("truncated central directory");
  }
  const nameLength = data.getUint16(at + 28, true);
  const extraLength = data.getUint16(at + 30, true);
  const commentLength = data.getUint16(at + 32, true);
  const end = at + 46 + nameLength + extraLength + commentLength;
  if (end > limit) throw malformed("truncated central directory");
  const nameStart = data.byteOffset + at + 46;
  const entry: ZipEntry = {
    name: names.decode(new Uint8Array(data.buffer, nameStart, nameLength)),
    flags: data.getUint16(at + 8, true),
    method: data.getUint16(at + 10, true),
    compressedSize: data.getUint32(at + 20, true),
    uncompressedSize: data.getUint32(at + 24, true),
    localOffset: data.getUint32(at + 42, true),
  };
  applyZip64(entry, data, at + 46 + nameLength, at + 46 + nameLength + extraLength);
  return [entry, end];
}

/** The entries of a ZIP archive from its central directory; throws BlobFormatError when broken. */
export function readZipDirectory(bytes: Uint8Array): ZipEntry[] {
  const end = findEndOfDirectory(bytes);
  const data = view(bytes);
  const entries: ZipEntry[] = [];
  let at = end.directoryOffset;
  const limit = end.directoryOffset + end.directorySize;
  for (let i = 0; i < end.entryCount; i++) {
    const [entry, next] = readCentralRecord(data, at, limit);
    if (entry.localOffset >= end.directoryOffset)
      throw malformed(`entry ${entry.name} lies outside the archive`);
    entries.push(entry);
    at = next;
  }
  return entries;
}
