import { crc32 } from "node:zlib";
import { view } from "./bytes.js";

const SIGNATURE_LENGTH = 8;
const CHUNK_TYPE = /^[A-Za-z]{4}$/;

/**
 * Why a PNG is structurally broken, or undefined when every chunk is whole, every CRC
 * matches, IHDR comes first and IEND is reached. Bytes after IEND are not judged.
 */
export function pngProblem(bytes: Uint8Array): string | undefined {
  const data = view(bytes);
  let at = SIGNATURE_LENGTH;
  let first = true;
  while (at + 12 <= bytes.length) {
    const length = data.getUint32(at, false);
    const type = Buffer.from(bytes.subarray(at + 4, at + 8)).toString("latin1");
    if (!CHUNK_TYPE.test(type)) return "malformed PNG: bad chunk type";
    if (first && type !== "IHDR") return "malformed PNG: IHDR is not the first chunk";
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > bytes.length) return `malformed PNG: truncated ${type} chunk`;
    if (crc32(bytes.subarray(at + 4, end - 4)) !== data.getUint32(end - 4, false)) {
      return `malformed PNG: ${type} chunk has a bad CRC`;
    }
    if (type === "IEND") return undefined;
    first = false;
    at = end;
  }
  return "malformed PNG: no IEND chunk (truncated)";
}
