import { BUNDLE_FORMAT, BUNDLE_VERSION, type EvidenceBundle } from "../../formats/bundle/format.js";
import { CodedError } from "../../formats/coded-error.js";

// Plain Uint8Array and atob: the verifier runs in browsers as it is.
export function bytes(b64: string): Uint8Array {
  let bin: string;
  try {
    bin = atob(b64.replace(/\s+/g, ""));
  } catch {
    throw new BundleError("a value that should be base64 is not");
  }
  // A plain loop: `Uint8Array.from` with a callback was most of a 1,000-record bundle's parse.
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
export const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
export function unhex(h: string): Uint8Array {
  if (!/^([0-9a-f]{2})*$/i.test(h)) throw new BundleError("a value that should be hex is not");
  return Uint8Array.from(h.match(/../g) ?? [], (x) => Number.parseInt(x, 16));
}

/**
 * @example
 * ```ts
 * try { parseBundle(text); } catch (e) { if (e instanceof BundleError) console.error(e.code, e.message); }
 * ```
 */
export class BundleError extends CodedError<"BUNDLE_MALFORMED"> {
  readonly code = "BUNDLE_MALFORMED";
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const objects = (v: unknown): v is Array<Record<string, unknown>> => Array.isArray(v) && v.every(isObject);
const strings = (v: unknown): boolean => Array.isArray(v) && v.every((s) => typeof s === "string");

const entryNumbers = (v: unknown): boolean =>
  Array.isArray(v) && v.every((i) => Number.isSafeInteger(i) && (i as number) >= 0);

/**
 * What in the bundle's index lookups is not of the shape the completeness step reads before it
 * verifies one (its log, its key, its entries, its revision), or undefined. The rest of a lookup
 * is `verifyLookup`'s to refuse, by name, as a failed proof.
 */
function malformedIndex(index: unknown): string | undefined {
  if (index === undefined) return undefined;
  if (!objects(index)) return "its index is not a list of lookups";
  const logs = new Set<string>();
  for (const [i, l] of index.entries()) {
    if (typeof l.log !== "string" || typeof l.key !== "string")
      return `index lookup ${i + 1} lacks its log or its key`;
    if (!entryNumbers(l.indices)) return `index lookup ${i + 1} lacks its list of log entries`;
    if (!isObject(l.revision)) return `index lookup ${i + 1} lacks its revision`;
    // One answer per log: two could say different things of the same entries.
    if (logs.has(l.log)) return `the index holds two lookups of log ${l.log}`;
    logs.add(l.log);
  }
  return undefined;
}

/**
 * What in a bundle is not of the shape the checks read (so a hostile file is refused by name,
 * not by a TypeError halfway through), or undefined. Logs of a profile this verifier does not
 * know are only named, never read.
 */
function malformedPart(o: Partial<EvidenceBundle>): string | undefined {
  if (!isObject(o.subject) || typeof o.subject.id !== "string") return "the bundle names no subject";
  for (const [i, r] of (o.records ?? []).entries())
    if (!isObject(r) || !isObject(r.record) || !objects(r.receipts))
      return `record ${i + 1} lacks its record or its list of receipts`;
    else if (r.statement !== undefined && typeof r.statement !== "string")
      return `record ${i + 1}: its statement is not a base64 string`;
    else if (r.statement_unavailable !== undefined && typeof r.statement_unavailable !== "string")
      return `record ${i + 1}: why its statement is unavailable is not a string`;
  for (const [i, l] of (o.logs ?? []).entries()) {
    if (!isObject(l) || typeof l.log !== "string" || typeof l.profile !== "string")
      return `log ${i + 1} lacks its name or profile`;
    if (l.profile !== "mmr") continue;
    if (!objects(l.seals) || !objects(l.consistency))
      return `log ${l.log} lacks its seals or consistency proofs`;
    const checkpoints = (l as { checkpoints?: unknown }).checkpoints;
    if (
      checkpoints !== undefined &&
      !(
        objects(checkpoints) &&
        checkpoints.every(
          (c) =>
            c.consistency === undefined ||
            (objects(c.consistency) && c.consistency.every((p) => strings(p.proof))),
        )
      )
    )
      return `log ${l.log}: its checkpoints are malformed`;
  }
  return malformedIndex((o as { index?: unknown }).index);
}

/**
 * Reads a bundle's JSON text, refusing anything that is not this format's known major version.
 *
 * @example
 * ```ts
 * const bundle = parseBundle(await readFile("evidence.json", "utf8")); // throws BundleError
 * ```
 */
export function parseBundle(text: string): EvidenceBundle {
  let b: unknown;
  try {
    b = JSON.parse(text);
  } catch {
    throw new BundleError("the file is not JSON, so it is not an evidence bundle");
  }
  const o = (b ?? {}) as Partial<EvidenceBundle>;
  if (o.format !== BUNDLE_FORMAT)
    throw new BundleError(`not an evidence bundle (format is not "${BUNDLE_FORMAT}")`);
  if (o.version !== BUNDLE_VERSION)
    throw new BundleError(
      `evidence bundle version ${String(o.version)} is not one this verifier reads (${BUNDLE_VERSION})`,
    );
  if (!Array.isArray(o.records) || !Array.isArray(o.logs) || typeof o.keys?.cose_key_set !== "string")
    throw new BundleError("the bundle lacks its records, logs or keys");
  const fault = malformedPart(o);
  if (fault) throw new BundleError(`the bundle is malformed: ${fault}`);
  return o as EvidenceBundle;
}
