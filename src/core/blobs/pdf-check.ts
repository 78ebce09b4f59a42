import { asciiText } from "./bytes.js";

// PDF readers look for the end-of-file marker within the last kilobyte.
const TAIL = 1024;

/** Why a PDF is broken (no `%%EOF` near its end: truncated), or undefined. */
export function pdfProblem(bytes: Uint8Array): string | undefined {
  const tail = asciiText(bytes.subarray(Math.max(0, bytes.length - TAIL)));
  return tail.includes("%%EOF") ? undefined : "malformed PDF: no %%EOF (truncated)";
}
