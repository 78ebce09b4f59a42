/**
 * AI provenance (draft-howe-vcon-provenance-00): an analysis's `provenance` member says how it was
 * generated (model, provider, decoding parameters, the prompt's hash, the vCon elements given to
 * the model, the output's hash). The service records that derivation as a lifecycle event whose
 * payload is the SHA-256 of its canonical form (so it is also a SCITT statement, made of the event
 * like any template event), and a verifier recomputes the derivation from the vCon it holds and
 * checks it against what was registered: not only that the analysis exists, but that it is the
 * one the registered model call produced from those inputs.
 *
 * The member's shape read here (docs/vcon-lifecycle.md, §5): `model` (required), `provider`,
 * `parameters` (an object), `prompt_hash`, `inputs` ([{type: dialog|analysis|attachment, index,
 * hash?}]), `output_hash`. Hashes are `sha256:<hex>`. Where the member states a hash of its own,
 * it must be the one recomputed.
 */
import canonicalizeModule from "canonicalize";
import { toHex, utf8 } from "../../formats/crypto/bytes.js";
import { sha256 } from "../../formats/crypto/sha256.js";
import { sameSubject } from "../../formats/vcon/subject.js";

type Canonicalize = (input: unknown) => string | undefined;
// canonicalize is CommonJS with an ESM-style d.ts: under NodeNext the default import is the function at run time.
const loaded = canonicalizeModule as unknown as Canonicalize | { default: Canonicalize };
const canonicalize: Canonicalize = typeof loaded === "function" ? loaded : loaded.default;

/** The payload's content type of a provenance event: the derivation's canonical JSON. */
export const PROVENANCE_CONTENT_TYPE = "application/vcon-provenance+json";

const ELEMENTS = { dialog: "dialog", analysis: "analysis", attachment: "attachments" } as const;
type ElementType = keyof typeof ELEMENTS;

/** One model call's derivation of one analysis, as registered: everything recomputable from the vCon. */
export interface Derivation {
  vcon: string;
  analysis: number;
  type: string;
  vendor: string;
  model: string;
  provider: string;
  parameters: Record<string, unknown>;
  prompt_hash: string;
  inputs: Array<{ element: string; sha256: string }>;
  output_sha256: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown) => (typeof v === "string" ? v : "");
const hexOf = (bytes: Uint8Array) => toHex(sha256(bytes));

/** SHA-256 of an element as RFC 8785 canonical JSON: the same however it was serialised. */
function elementHash(element: unknown): string {
  return hexOf(utf8(canonicalize(element) ?? ""));
}

/** SHA-256 of an analysis's output: its body's text, or its canonical JSON when the body is not text. */
function outputHash(analysis: Record<string, unknown>): string {
  const body = analysis.body;
  return typeof body === "string" ? hexOf(utf8(body)) : elementHash(body ?? null);
}

/** `sha256:<hex>` as the member writes a hash, or undefined for any other form. */
function statedHex(v: unknown): string | undefined {
  const m = /^sha256:([0-9a-f]{64})$/i.exec(text(v));
  return m?.[1]?.toLowerCase();
}

/** A vCon's analysis and its derivation, or why there is none to register or check. */
export type DerivationResult =
  | { ok: true; derivation: Derivation; preimage: Uint8Array; hash: string }
  | { ok: false; reason: string };

/**
 * The derivation of `vcon.analysis[index]` from its `provenance` member, each hash recomputed
 * from the vCon. Refused (with the reason): no such analysis, no member or no model, an input
 * that names no element of the vCon, or a hash the member states that is not the element's.
 */
export function analysisDerivation(vcon: Record<string, unknown>, index: number): DerivationResult {
  const analyses = Array.isArray(vcon.analysis) ? vcon.analysis : [];
  const analysis = analyses[index];
  if (!isObject(analysis)) return { ok: false, reason: `the vCon has no analysis ${index}` };
  const p = analysis.provenance;
  if (!isObject(p)) return { ok: false, reason: `analysis ${index} has no provenance member` };
  if (!text(p.model)) return { ok: false, reason: `analysis ${index}: its provenance names no model` };
  const inputs: Derivation["inputs"] = [];
  for (const [i, input] of (Array.isArray(p.inputs) ? p.inputs : []).entries()) {
    const type = isObject(input) ? text(input.type) : "";
    const at = isObject(input) ? input.index : undefined;
    if (!(type in ELEMENTS) || typeof at !== "number" || !Number.isSafeInteger(at))
      return {
        ok: false,
        reason: `analysis ${index}: provenance input ${i} names no element (type and index)`,
      };
    const list = vcon[ELEMENTS[type as ElementType]];
    const element = Array.isArray(list) ? list[at] : undefined;
    if (element === undefined)
      return { ok: false, reason: `analysis ${index}: input ${type}/${at} is not in the vCon` };
    const hash = elementHash(element);
    const stated = isObject(input) ? input.hash : undefined;
    if (stated !== undefined && statedHex(stated) !== hash)
      return {
        ok: false,
        reason: `analysis ${index}: the hash its provenance states for ${type}/${at} is not the element's`,
      };
    inputs.push({ element: `${type}/${at}`, sha256: hash });
  }
  const output = outputHash(analysis);
  if (p.output_hash !== undefined && statedHex(p.output_hash) !== output)
    return {
      ok: false,
      reason: `analysis ${index}: the output hash its provenance states is not its body's`,
    };
  const derivation: Derivation = {
    vcon: text(vcon.uuid),
    analysis: index,
    type: text(analysis.type),
    vendor: text(analysis.vendor),
    model: text(p.model),
    provider: text(p.provider),
    parameters: isObject(p.parameters) ? p.parameters : {},
    prompt_hash: text(p.prompt_hash),
    inputs,
    output_sha256: output,
  };
  const preimage = utf8(canonicalize(derivation) ?? "");
  return { ok: true, derivation, preimage, hash: hexOf(preimage) };
}

/** Every analysis of the vCon that carries a provenance member, by index. */
export function analysesWithProvenance(vcon: Record<string, unknown>): number[] {
  const analyses = Array.isArray(vcon.analysis) ? vcon.analysis : [];
  return analyses.flatMap((a, i) => (isObject(a) && isObject(a.provenance) ? [i] : []));
}

/** The event attributes that name a registered derivation (beside the template's `payload`, its hash). */
export const PROVENANCE_ATTRIBUTES = {
  analysis: "provenance_analysis",
  model: "provenance_model",
  provider: "provenance_provider",
  output: "provenance_output_sha256",
} as const;

/**
 * Checks a recorded derivation (an event's attributes: its `payload` and provenance attributes,
 * proven by the event's receipt) against the analysis the vCon holds now. The first difference
 * is named: the analysis or its inputs were changed after the derivation was registered, or
 * the record registers another analysis.
 *
 * @example
 * ```ts
 * const d = checkDerivation(vcon, 0, event.event_attributes); // the event's receipt verified first
 * if (!d.ok) console.error(d.reason);
 * ```
 */
export function checkDerivation(
  vcon: Record<string, unknown>,
  index: number,
  attributes: Record<string, unknown>,
): { ok: true; derivation: Derivation } | { ok: false; reason: string } {
  const d = analysisDerivation(vcon, index);
  if (!d.ok) return d;
  if (text(attributes.payload_preimage_content_type) !== PROVENANCE_CONTENT_TYPE)
    return {
      ok: false,
      reason: `the record is not a provenance record (its payload is not ${PROVENANCE_CONTENT_TYPE})`,
    };
  if (!sameSubject(text(attributes.subject), `vcon://${d.derivation.vcon}`))
    return {
      ok: false,
      reason: `the record is of ${text(attributes.subject) || "no subject"}, not of vcon://${d.derivation.vcon}`,
    };
  if (String(attributes[PROVENANCE_ATTRIBUTES.analysis] ?? "") !== String(index))
    return {
      ok: false,
      reason: `the record registers analysis ${String(attributes[PROVENANCE_ATTRIBUTES.analysis])}, not ${index}`,
    };
  if (text(attributes[PROVENANCE_ATTRIBUTES.output]) !== d.derivation.output_sha256)
    return {
      ok: false,
      reason: `analysis ${index}'s output is not the one registered: it was changed after its derivation was recorded`,
    };
  if (text(attributes.payload).toLowerCase() !== d.hash)
    return {
      ok: false,
      reason: `analysis ${index}'s derivation (model, provider, parameters, prompt or inputs) is not the one registered`,
    };
  return { ok: true, derivation: d.derivation };
}
