/** The Office Open XML media types (and their macro-enabled kin), as registered. */
export const OOXML = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  docm: "application/vnd.ms-word.document.macroEnabled.12",
  xlsm: "application/vnd.ms-excel.sheet.macroEnabled.12",
  pptm: "application/vnd.ms-powerpoint.presentation.macroEnabled.12",
} as const;

/** Main-part content types of `[Content_Types].xml`, most specific first. */
const MAIN_PARTS: Array<[marker: string, mime: string]> = [
  ["wordprocessingml.document.main+xml", OOXML.docx],
  ["spreadsheetml.sheet.main+xml", OOXML.xlsx],
  ["presentationml.presentation.main+xml", OOXML.pptx],
  ["ms-word.document.macroenabled.main+xml", OOXML.docm],
  ["ms-excel.sheet.macroenabled.main+xml", OOXML.xlsm],
  ["ms-powerpoint.presentation.macroenabled.main+xml", OOXML.pptm],
];

/** Top-level folders that name the application when the content types cannot be read. */
const FOLDERS: Array<[prefix: string, mime: string]> = [
  ["word/", OOXML.docx],
  ["xl/", OOXML.xlsx],
  ["ppt/", OOXML.pptx],
];

export const CONTENT_TYPES_ENTRY = "[Content_Types].xml";

/**
 * The OOXML media type of a ZIP from its entry names and, when it could be read, its
 * `[Content_Types].xml`. Without that entry a ZIP is no Office document, whatever its
 * folders are called.
 */
export function ooxmlMime(entryNames: readonly string[], contentTypesXml?: string): string | undefined {
  if (!entryNames.includes(CONTENT_TYPES_ENTRY)) return undefined;
  const xml = contentTypesXml?.toLowerCase() ?? "";
  for (const [marker, mime] of MAIN_PARTS) if (xml.includes(marker)) return mime;
  for (const [prefix, mime] of FOLDERS) if (entryNames.some((name) => name.startsWith(prefix))) return mime;
  return undefined;
}
