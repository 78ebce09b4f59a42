import { COSIGNATURE_V1, parseVkey } from "./keys.js";
import { NoteError } from "./note.js";

/** A witness the log submits its checkpoints to: its cosignature vkey and submission prefix. */
export interface WitnessEntry {
  name: string;
  vkey: string;
  url: string;
}

/**
 * Parses `ARCHIVIST_WITNESSES`: entries separated by newlines or `;`, each a cosignature/v1
 * vkey (signature type 0x04) and the witness's submission prefix URL, separated by spaces.
 */
export function parseWitnessList(raw: string): WitnessEntry[] {
  const out: WitnessEntry[] = [];
  for (const entry of raw.split(/[;\n]/).map((e) => e.trim())) {
    if (entry === "") continue;
    const [vkey, url, ...rest] = entry.split(/\s+/);
    if (!vkey || !url || rest.length > 0) throw new NoteError(`a witness is "<vkey> <url>", got "${entry}"`);
    const k = parseVkey(vkey);
    if (k.type !== COSIGNATURE_V1)
      throw new NoteError(`witness ${k.name}: its vkey must be a cosignature/v1 (type 0x04) key`);
    if (!/^https?:\/\/[^\s]+$/.test(url))
      throw new NoteError(`witness ${k.name}: "${url}" is not an http(s) URL`);
    if (out.some((w) => w.name === k.name)) throw new NoteError(`witness ${k.name} is listed twice`);
    out.push({ name: k.name, vkey, url: url.replace(/\/+$/, "") });
  }
  return out;
}
