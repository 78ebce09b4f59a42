import { COSIGNATURE_V1, parseVkey } from "./keys.js";
import { ML_DSA_44 } from "./ml-dsa.js";
import { NoteError } from "./note.js";

/** A witness the log submits its checkpoints to: its cosignature vkey and submission prefix. */
export interface WitnessEntry {
  name: string;
  vkey: string;
  url: string;
}

/**
 * Parses `ARCHIVIST_WITNESSES`: entries separated by newlines or `;`, each a cosignature vkey
 * (Ed25519, type 0x04, or ML-DSA-44, type 0x06) and the witness's submission prefix URL,
 * separated by spaces.
 */
export function parseWitnessList(raw: string): WitnessEntry[] {
  const out: WitnessEntry[] = [];
  for (const entry of raw.split(/[;\n]/).map((e) => e.trim())) {
    if (entry === "") continue;
    const [vkey, url, ...rest] = entry.split(/\s+/);
    if (!vkey || !url || rest.length > 0) throw new NoteError(`a witness is "<vkey> <url>", got "${entry}"`);
    const k = parseVkey(vkey);
    if (k.type !== COSIGNATURE_V1 && k.type !== ML_DSA_44)
      throw new NoteError(
        `witness ${k.name}: its vkey must be a cosignature key (Ed25519 type 0x04 or ML-DSA-44 type 0x06)`,
      );
    if (!/^https?:\/\/[^\s]+$/.test(url))
      throw new NoteError(`witness ${k.name}: "${url}" is not an http(s) URL`);
    if (out.some((w) => w.name === k.name)) throw new NoteError(`witness ${k.name} is listed twice`);
    out.push({ name: k.name, vkey, url: url.replace(/\/+$/, "") });
  }
  return out;
}
