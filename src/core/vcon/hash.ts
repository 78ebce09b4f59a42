import { createHash } from "node:crypto";
import canonicalizeModule from "canonicalize";
import { VconError } from "./errors.js";
import { normalizeLegacyFields } from "./legacy.js";
import type { VconDocument } from "./parse.js";
import { pythonDumps } from "./python-dumps.js";

type Canonicalize = (input: unknown) => string | undefined;
// canonicalize is CommonJS with an ESM-style d.ts: under NodeNext the default import is the function at run time.
const loaded = canonicalizeModule as unknown as Canonicalize | { default: Canonicalize };
const canonicalize: Canonicalize = typeof loaded === "function" ? loaded : loaded.default;

/**
 * - `raw`: the exact bytes received (webhook bodies: equals the Python link's hash);
 * - `python-json`: Python json.dumps defaults over the stored key order, as vcon-server's `Vcon.hash`;
 * - `python-json-normalized`: the same after vcon-server's legacy renames on read;
 * - `jcs`: RFC 8785 canonical JSON, for producers that re-serialise.
 */
export type HashMode = "raw" | "python-json" | "python-json-normalized" | "jcs";

export const HASH_MODES: readonly HashMode[] = ["raw", "python-json", "python-json-normalized", "jcs"];

/** The bytes a hash mode hashes (the preimage of `payload`). */
export function hashPreimage(doc: VconDocument, mode: HashMode): Uint8Array {
  switch (mode) {
    case "raw":
      return doc.bytes;
    case "python-json":
      return Buffer.from(pythonDumps(doc.tree), "utf8");
    case "python-json-normalized":
      return Buffer.from(pythonDumps(normalizeLegacyFields(doc.tree)), "utf8");
    case "jcs":
      return Buffer.from(canonicalize(doc.value) ?? "", "utf8");
    default:
      throw new VconError("HASH_MODE_UNKNOWN", `unknown hash mode ${String(mode)}`);
  }
}

/** SHA-256 of the vCon under `mode`, lowercase hex (the template's `payload`). */
export function hashVcon(doc: VconDocument, mode: HashMode): string {
  return createHash("sha256").update(hashPreimage(doc, mode)).digest("hex");
}

/** True for a known hash mode name. */
export function isHashMode(v: unknown): v is HashMode {
  return typeof v === "string" && (HASH_MODES as readonly string[]).includes(v);
}
