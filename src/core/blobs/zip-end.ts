import { BlobFormatError } from "./blob-format-error.js";
import { view } from "./bytes.js";

/** Where the central directory is, from the end-of-central-directory record(s). */
export interface ZipEnd {
  entryCount: number;
  directoryOffset: number;
  directorySize: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const EOCD_SIZE = 22;

const malformed = (message: string) => new BlobFormatError("zip_malformed", message);

/** The last EOCD record, searched backwards over the longest possible comment. */
function locateEocd(data: DataView): number {
  const lowest = Math.max(0, data.byteLength - EOCD_SIZE - 0xffff);
  for (let at = data.byteLength - EOCD_SIZE; at >= lowest; at--) {
    if (data.getUint32(at, true) === EOCD_SIGNATURE) return at;
  }
  throw malformed("no end of central directory (truncated ZIP)");
}

const safe = (value: bigint, what: string) => {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw malformed(`ZIP64 ${what} is out of range`);
  return Number(value);
};

/** Reads the ZIP64 end record the locator just before the classic EOCD points to. */
function readZip64End(data: DataView, eocd: number): ZipEnd & { recordOffset: number } {
  const locator = eocd - 20;
  if (locator < 0 || data.getUint32(locator, true) !== ZIP64_LOCATOR_SIGNATURE) {
    throw malformed("ZIP64 archive without its locator");
  }
  const record = safe(data.getBigUint64(locator + 8, true), "record offset");
  if (record + 56 > locator || data.getUint32(record, true) !== ZIP64_EOCD_SIGNATURE) {
    throw malformed("ZIP64 end of central directory is missing");
  }
  return {
    entryCount: safe(data.getBigUint64(record + 32, true), "entry count"),
    directorySize: safe(data.getBigUint64(record + 40, true), "directory size"),
    directoryOffset: safe(data.getBigUint64(record + 48, true), "directory offset"),
    recordOffset: record,
  };
}

/** Finds and checks the central directory bounds; throws BlobFormatError when broken. */
export function findEndOfDirectory(bytes: Uint8Array): ZipEnd {
  if (bytes.length < EOCD_SIZE) throw malformed("too short to be a ZIP archive");
  const data = view(bytes);
  const eocd = locateEocd(data);
  if (data.getUint16(eocd + 4, true) !== 0 || data.getUint16(eocd + 6, true) !== 0) {
    throw new BlobFormatError("zip_unsupported", "multi-disk ZIP archives are not supported");
  }
  const classic = {
    entryCount: data.getUint16(eocd + 10, true),
    directorySize: data.getUint32(eocd + 12, true),
    directoryOffset: data.getUint32(eocd + 16, true),
    recordOffset: eocd,
  };
  const saturated =
    classic.entryCount === 0xffff ||
    classic.directorySize === 0xffffffff ||
    classic.directoryOffset === 0xffffffff;
  const end = saturated ? readZip64End(data, eocd) : classic;
  if (end.directoryOffset + end.directorySize > end.recordOffset)
    throw malformed("truncated central directory");
  return {
    entryCount: end.entryCount,
    directoryOffset: end.directoryOffset,
    directorySize: end.directorySize,
  };
}
