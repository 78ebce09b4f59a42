import { isDisguiseFor } from "./document-types.js";
import { containsEicar } from "./eicar.js";
import { executableKind } from "./executable.js";
import { gzipProblem } from "./gzip-check.js";
import { isGzip, isPdf, isPng, isZip } from "./magic.js";
import { pdfProblem } from "./pdf-check.js";
import { pngProblem } from "./png-check.js";
import { DEFAULT_SCAN_LIMITS, type ScanLimits } from "./scan-limits.js";
import { type ScanResult, scannedBad, scannedOk } from "./scan-result.js";
import { zipProblem } from "./zip-scan.js";

/** Why a container is structurally bad, judged by what the bytes are, not what they claim. */
function containerProblem(bytes: Uint8Array, declaredMime: string, limits: ScanLimits): string | undefined {
  if (isZip(bytes)) return zipProblem(bytes, declaredMime, { limits, declared: 0, inspected: 0 });
  if (isPng(bytes)) return pngProblem(bytes);
  if (isGzip(bytes)) return gzipProblem(bytes, limits);
  if (isPdf(bytes)) return pdfProblem(bytes);
  return undefined;
}

/**
 * The built-in scan of a blob: the EICAR test string, executables disguised under a
 * document or image type (`declaredMime` is the type the blob is stored under), archive
 * bombs and malformed ZIP, PNG, PDF and gzip containers. Pure compute: never throws on
 * hostile bytes, and decompression is capped by `limits`.
 */
export function scanBlob(
  bytes: Uint8Array,
  declaredMime: string,
  limits: ScanLimits = DEFAULT_SCAN_LIMITS,
): ScanResult {
  if (containsEicar(bytes)) return scannedBad("EICAR test file");
  const kind = executableKind(bytes);
  if (kind !== undefined && isDisguiseFor(declaredMime, kind === "script" ? "script" : "binary")) {
    return scannedBad(`${kind} executable disguised as ${declaredMime}`);
  }
  const problem = containerProblem(bytes, declaredMime, limits);
  return problem === undefined ? scannedOk() : scannedBad(problem);
}
