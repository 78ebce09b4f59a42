import { VconError } from "../../formats/vcon/errors.js";
import { isLosslessObject, type LosslessObject, parseLossless } from "../../formats/vcon/lossless-json.js";
import { detectForm, type VconForm } from "./form.js";
import { decodeSignedPayload } from "./signed-payload.js";
import { checkUnsigned, isRecord } from "./unsigned-check.js";

/** A vCon as received: its exact bytes, an order- and number-preserving tree, and a plain view. */
export interface VconDocument {
  form: VconForm;
  bytes: Uint8Array;
  text: string;
  /** Lossless tree (key order, number lexemes): the input of `python-json` hashing. */
  tree: LosslessObject;
  /** Plain JavaScript view (JSON.parse). */
  value: Record<string, unknown>;
  /** The unsigned vCon: the document itself, or the JWS payload; absent for the encrypted form. */
  unsigned: Record<string, unknown> | undefined;
  /** `vcon` version string when present (e.g. "0.0.1" for legacy vCons). */
  version: string | undefined;
  redacted: boolean;
  amended: boolean;
  legacy: boolean;
  /** Findings that do not stop processing (missing created_at, ...). */
  issues: string[];
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function toText(input: Uint8Array | string): { bytes: Uint8Array; text: string } {
  if (typeof input === "string") return { bytes: new TextEncoder().encode(input), text: input };
  try {
    return { bytes: input, text: decoder.decode(input) };
  } catch {
    throw new VconError("JSON_SYNTAX", "vCon is not valid UTF-8");
  }
}

function nonEmpty(v: unknown): boolean {
  return isRecord(v) && Object.keys(v).length > 0;
}

/** Parses and checks a vCon of any form; unknown fields are kept and never rejected. */
export function parseVcon(input: Uint8Array | string): VconDocument {
  const { bytes, text } = toText(input);
  const tree = parseLossless(text);
  if (!isLosslessObject(tree)) throw new VconError("VCON_NOT_OBJECT", "a vCon must be a JSON object");
  const value = JSON.parse(text) as Record<string, unknown>;
  const form = detectForm(value);
  if (!form)
    throw new VconError(
      "VCON_FORM_UNKNOWN",
      "not a vCon: no parties/dialog/analysis/attachments (unsigned), payload+signatures (signed) or ciphertext+recipients (encrypted)",
    );
  let unsigned: Record<string, unknown> | undefined;
  let issues: string[] = [];
  if (form === "unsigned") {
    unsigned = value;
    issues = checkUnsigned(value);
  } else if (form === "signed") {
    unsigned = decodeSignedPayload(value.payload);
    issues = checkUnsigned(unsigned, "payload.");
  } else if (!isRecord(value.unprotected) || typeof value.unprotected.uuid !== "string") {
    issues.push("unprotected.uuid is missing");
  }
  const version = typeof unsigned?.vcon === "string" ? unsigned.vcon : undefined;
  return {
    form,
    bytes,
    text,
    tree,
    value,
    unsigned,
    version,
    redacted: nonEmpty(unsigned?.redacted),
    amended: nonEmpty(unsigned?.amended) || nonEmpty(unsigned?.appended),
    legacy: version !== undefined && /^0\.0\./.test(version),
    issues,
  };
}

/** Parses a vCon given as a JavaScript object (serialised with JSON.stringify first). */
export function vconFromObject(o: unknown): VconDocument {
  if (!isRecord(o)) throw new VconError("VCON_NOT_OBJECT", "a vCon must be a JSON object");
  return parseVcon(JSON.stringify(o));
}
