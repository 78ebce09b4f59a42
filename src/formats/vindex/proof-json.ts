// A vindex/v1 proof as JSON, for a response body or a file: hashes in lower-case hex (one proof,
// one text), and nothing but the fields named here.
import { fromHex, toHex } from "../crypto/bytes.js";
import { VindexError } from "./error.js";
import { MAX_DEPTH } from "./hash.js";
import type { VindexProof } from "./proof.js";

/** The JSON form of a proof. */
interface VindexProofJson {
  siblings: string[];
  terminal: { kind: "leaf"; position: string; value: string } | { kind: "empty" };
}

/** The proof's JSON form (an object for `JSON.stringify`). */
export function encodeProof(proof: VindexProof): VindexProofJson {
  const t = proof.terminal;
  return {
    siblings: proof.siblings.map(toHex),
    terminal:
      t.kind === "leaf"
        ? { kind: "leaf", position: toHex(t.position), value: toHex(t.valueCommitment) }
        : { kind: "empty" },
  };
}

const HEX32 = /^[0-9a-f]{64}$/;

function hash32(value: unknown, what: string): Uint8Array {
  if (typeof value !== "string" || !HEX32.test(value))
    throw new VindexError(`${what} is not 64 lower-case hex digits`);
  return fromHex(value);
}

function record(value: unknown, what: string, keys: readonly string[]): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new VindexError(`${what} is not an object`);
  const extra = Object.keys(value).filter((k) => !keys.includes(k));
  if (extra.length > 0) throw new VindexError(`${what} has unknown fields: ${extra.join(", ")}`);
  return value as Record<string, unknown>;
}

function terminalOf(value: unknown): VindexProof["terminal"] {
  const kind = (value as { kind?: unknown } | null)?.kind;
  if (kind === "empty") {
    record(value, "the empty terminal", ["kind"]);
    return { kind: "empty" };
  }
  if (kind !== "leaf") throw new VindexError('the terminal\'s kind is neither "leaf" nor "empty"');
  const t = record(value, "the leaf terminal", ["kind", "position", "value"]);
  return {
    kind: "leaf",
    position: hash32(t.position, "the terminal's position"),
    valueCommitment: hash32(t.value, "the terminal's value"),
  };
}

/**
 * A proof from its JSON form: the parsed value, or its text. Throws VindexError for anything else
 * (the proof's verification is `verifyVindexProof`'s: this checks its shape only).
 */
export function decodeProof(json: unknown): VindexProof {
  let value = json;
  if (typeof json === "string") {
    try {
      value = JSON.parse(json);
    } catch (e) {
      throw new VindexError("the proof is not JSON", { cause: e });
    }
  }
  const p = record(value, "the proof", ["siblings", "terminal"]);
  if (!Array.isArray(p.siblings)) throw new VindexError("the proof's siblings are not a list");
  if (p.siblings.length > MAX_DEPTH) throw new VindexError(`a proof has at most ${MAX_DEPTH} siblings`);
  const siblings = p.siblings.map((s: unknown, i) => hash32(s, `sibling ${i}`));
  return { siblings, terminal: terminalOf(p.terminal) };
}
