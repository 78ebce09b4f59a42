import { CodedError } from "../coded-error.js";
import { toBase64 as base64Of, fromBase64 as bytesOfBase64 } from "../crypto/bytes.js";
/**
 * C2SP signed notes: a text ending in a newline, a blank line, then one signature line per
 * key, `— <name> base64(key id ‖ signature)`. Verification ignores unknown keys, refuses the
 * note when a known key's signature fails, and needs at least one known key to succeed.
 */
export class NoteError extends CodedError<"NOTE_INVALID"> {
  readonly code = "NOTE_INVALID";
}

export interface NoteSignature {
  name: string;
  /** uint32 key id, the first four signature bytes. */
  keyId: number;
  /** The signature bytes after the key id. */
  signature: Uint8Array;
}

export interface Note {
  text: string;
  signatures: NoteSignature[];
}

/** A key that can check signatures of one (name, key id). */
export interface NoteVerifier {
  name: string;
  keyId: number;
  verify(text: Uint8Array, signature: Uint8Array): boolean;
}

// Notes are small; a bound keeps a hostile one from costing much (the spec asks for ≥ 16 signatures).
const MAX_NOTE_BYTES = 1 << 20;
const MAX_SIGNATURES = 100;

/** What starts a signature line (the service writes them with `signatureLine`, core/log/note-sign.ts). */
export const DASH = "\u2014 ";
const enc = new TextEncoder();
const B64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function fromBase64(s: string): Uint8Array {
  if (!B64.test(s) || s.length % 4 !== 0) throw new NoteError(`not base64: ${s.slice(0, 40)}`);
  return bytesOfBase64(s);
}

export const toBase64 = (b: Uint8Array): string => base64Of(b);

/** A key name: non-empty, no Unicode spaces, no plus. */
export function validKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u.test(name);
}

/** Parses signature lines (each ending in a newline), as a note's tail or a witness's answer. */
function parseSignatureLines(block: string): NoteSignature[] {
  if (block === "" || !block.endsWith("\n")) throw new NoteError("signature lines must end in a newline");
  const lines = block.slice(0, -1).split("\n");
  if (lines.length > MAX_SIGNATURES) throw new NoteError(`more than ${MAX_SIGNATURES} signatures`);
  return lines.map((line) => {
    if (!line.startsWith(DASH)) throw new NoteError(`not a signature line: ${line.slice(0, 40)}`);
    const rest = line.slice(DASH.length);
    const sp = rest.indexOf(" ");
    const name = rest.slice(0, sp);
    if (sp <= 0 || !validKeyName(name)) throw new NoteError("a signature line lacks a valid key name");
    const bytes = fromBase64(rest.slice(sp + 1));
    if (bytes.length < 5) throw new NoteError("a signature is shorter than its key id");
    return {
      name,
      keyId: new DataView(bytes.buffer, bytes.byteOffset).getUint32(0),
      signature: bytes.slice(4),
    };
  });
}

/** Splits a signed note into its text and signatures (nothing verified yet). */
export function parseNote(note: string): Note {
  if (enc.encode(note).length > MAX_NOTE_BYTES) throw new NoteError("note too large");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the spec forbids these characters
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note)) throw new NoteError("note contains control characters");
  if (note.includes("\ufffd")) throw new NoteError("note is not valid UTF-8");
  const split = note.lastIndexOf("\n\n");
  if (split < 0) throw new NoteError("note has no signatures");
  const text = note.slice(0, split + 1);
  return { text, signatures: parseSignatureLines(note.slice(split + 2)) };
}

/** Each signature line a verifier knows (same name and key id), with whether it verified under that verifier. */
export interface CheckedSignature {
  signature: NoteSignature;
  verifier: NoteVerifier;
  valid: boolean;
}

/**
 * Checks every signature line against the verifiers that know it, without judging: lines no
 * verifier knows are skipped. A verifier is the caller's key, so a line counts for a key only
 * when it verifies under that very key, never because its name and 4-byte key id match.
 */
export function checkSignatures(
  note: string,
  verifiers: NoteVerifier[],
): { text: string; checked: CheckedSignature[] } {
  const { text, signatures } = parseNote(note);
  const bytes = enc.encode(text);
  const checked: CheckedSignature[] = [];
  for (const signature of signatures)
    for (const verifier of verifiers)
      if (verifier.name === signature.name && verifier.keyId === signature.keyId)
        checked.push({ signature, verifier, valid: verifier.verify(bytes, signature.signature) });
  return { text, checked };
}

/** The signatures that verified, and the note's text. Throws when the note must be refused. */
export function verifyNote(
  note: string,
  verifiers: NoteVerifier[],
): { text: string; verified: NoteSignature[] } {
  const { text, checked } = checkSignatures(note, verifiers);
  const bad = checked.find((c) => !c.valid);
  if (bad) throw new NoteError(`signature by ${bad.signature.name} does not verify`);
  if (checked.length === 0) throw new NoteError("no signature by a known key");
  return { text, verified: checked.map((c) => c.signature) };
}
