import { fileTypeFromBuffer } from "file-type";
import { isZip } from "./magic.js";
import { textMime } from "./text.js";
import { officeMimeOfZip } from "./zip-office.js";

/** The answer when nothing better can be said about the bytes. */
const OCTET_STREAM = "application/octet-stream";

/** file-type's media type; its parsers meet hostile bytes, so a throw means "unknown". */
async function detect(bytes: Uint8Array): Promise<string | undefined> {
  try {
    return (await fileTypeFromBuffer(bytes))?.mime;
  } catch {
    return undefined;
  }
}

/**
 * The media type of an upload from its bytes: Office Open XML from the ZIP entries,
 * otherwise file-type's answer, otherwise JSON or plain text for UTF-8 without NULs.
 * `head` is the start of the content; `full`, when the caller has it, is the whole
 * content, needed to read a ZIP's central directory (and to tell complete JSON).
 */
export async function sniffMimeType(head: Uint8Array, fullForZip?: Uint8Array): Promise<string> {
  if (isZip(head)) {
    const archive = fullForZip ?? head;
    const office = officeMimeOfZip(archive);
    if (office !== undefined) return office;
    return (await detect(archive)) ?? "application/zip";
  }
  const detected = await detect(head);
  if (detected !== undefined) return detected;
  return textMime(head, fullForZip) ?? OCTET_STREAM;
}
