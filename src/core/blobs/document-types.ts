/** The media type without parameters, lower case: `Text/Plain; charset=x` → `text/plain`. */
function bareMime(mime: string): string {
  return (mime.split(";")[0] ?? "").trim().toLowerCase();
}

const DOCUMENT_PREFIXES = ["image/", "audio/", "video/", "font/", "text/"];
const DOCUMENT_TYPES = new Set([
  "application/pdf",
  "application/json",
  "application/xml",
  "application/rtf",
  "application/msword",
  "application/epub+zip",
]);
const DOCUMENT_FAMILIES = [
  "application/vnd.openxmlformats-officedocument.",
  "application/vnd.ms-",
  "application/vnd.oasis.opendocument.",
];

/**
 * True for types a person opens to read or view (documents, images, media, text) rather
 * than run or unpack: an executable under such a type is in disguise.
 */
export function isDocumentMime(mime: string): boolean {
  const bare = bareMime(mime);
  return (
    DOCUMENT_TYPES.has(bare) ||
    DOCUMENT_PREFIXES.some((prefix) => bare.startsWith(prefix)) ||
    DOCUMENT_FAMILIES.some((family) => bare.startsWith(family))
  );
}

/** Scripts are text, so a shebang file under `text/*` is honest; under any other document type it is not. */
export function isDisguiseFor(mime: string, kind: "binary" | "script"): boolean {
  return isDocumentMime(mime) && (kind === "binary" || !bareMime(mime).startsWith("text/"));
}
