import { sniffMimeType } from "../../core/blobs/index.js";

const ZIP = [0x50, 0x4b, 0x03, 0x04];

/** MIME type from the bytes; a ZIP is read whole so Office Open XML documents are told apart. */
export async function sniffUpload(head: Uint8Array, readAll: () => Promise<Uint8Array>): Promise<string> {
  const isZip = ZIP.every((b, i) => head[i] === b);
  return sniffMimeType(head, isZip ? await readAll() : undefined);
}
