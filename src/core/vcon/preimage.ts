import canonicalizeModule from "canonicalize";
import { VconError } from "../../formats/vcon/errors.js";
import { pythonDumps } from "../../formats/vcon/python-dumps.js";
import { normalizeLegacyFields } from "./legacy.js";
import type { VconDocument } from "./parse.js";

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

const utf8 = (text: string) => new TextEncoder().encode(text);

/**
 * The bytes a hash mode hashes (the preimage of `payload`). Of a document it reads only its
 * bytes and its two parses, and nothing of Node's: the console hashes a dropped vCon with it, in
 * the browser, exactly as the conserver's links do.
 */
export function hashPreimage(
  doc: Pick<VconDocument, "bytes" | "tree" | "value">,
  mode: HashMode,
): Uint8Array {
  switch (mode) {
    case "raw":
      return doc.bytes;
    case "python-json":
      return utf8(pythonDumps(doc.tree));
    case "python-json-normalized":
      return utf8(pythonDumps(normalizeLegacyFields(doc.tree)));
    case "jcs":
      return utf8(canonicalize(doc.value) ?? "");
    default:
      throw new VconError("HASH_MODE_UNKNOWN", `unknown hash mode ${String(mode)}`);
  }
}

/** True for a known hash mode name. */
export function isHashMode(v: unknown): v is HashMode {
  return typeof v === "string" && (HASH_MODES as readonly string[]).includes(v);
}
