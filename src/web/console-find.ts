import { HASH_MODES, type HashMode, hashPreimage } from "../core/vcon/preimage.js";
import { isLosslessObject, type LosslessObject, parseLossless } from "../formats/vcon/lossless-json.js";
import { LookupError, type PublicApi } from "../lookup/public-api.js";
import { sha256Hex } from "../lookup/sha256.js";
import type { FoundStatement } from "./console-data.js";

/** One hash a conserver link may have recorded as a vCon's `payload`, and the mode that makes it. */
export interface PayloadHash {
  modes: HashMode[];
  sha256: string;
}

/**
 * The payload hashes of a vCon file under every hash mode the conserver's links record (the
 * links' own preimage code, `src/core/vcon`), distinct: most vCons hash alike under some modes.
 */
export function vconPayloadHashes(bytes: Uint8Array): PayloadHash[] {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new LookupError("the file is not UTF-8 text, so it is not a vCon");
  }
  let doc: { bytes: Uint8Array; tree: LosslessObject; value: Record<string, unknown> };
  try {
    const tree = parseLossless(text);
    if (!isLosslessObject(tree)) throw new Error("not a JSON object");
    doc = { bytes, tree, value: JSON.parse(text) as Record<string, unknown> };
  } catch (err) {
    throw new LookupError(`the file is not a vCon's JSON: ${(err as Error).message}`);
  }
  const out: PayloadHash[] = [];
  for (const mode of HASH_MODES) {
    const sha256 = sha256Hex(hashPreimage(doc, mode));
    const same = out.find((h) => h.sha256 === sha256);
    if (same) same.modes.push(mode);
    else out.push({ modes: [mode], sha256 });
  }
  return out;
}

/** A record found by a vCon's payload hash: its identity and the hash's modes. */
export interface PayloadMatch {
  identity: string;
  modes: HashMode[];
  /** The record's subject (`vcon://<uuid>` for the links' records), when it names one. */
  subject: string;
}

const subjectOf = (attrs: unknown) => {
  const a = (attrs ?? {}) as Record<string, unknown>;
  return typeof a.subject === "string" ? a.subject : "";
};

/**
 * The records the caller may read whose payload is one of `hashes`: asset events (one list
 * request, the key repeated: any of its values), then asset-free events and registered
 * statements through the statement search by payload hash.
 */
export async function recordsByPayload(api: PublicApi, hashes: PayloadHash[]): Promise<PayloadMatch[]> {
  const modesOf = (hash: string) => hashes.find((h) => h.sha256 === hash.toLowerCase())?.modes ?? [];
  const q = hashes.map((h) => `event_attributes.payload=${h.sha256}`).join("&");
  const events = await api.list(`/archivist/v2/assets/-/events?${q}`, "events");
  const found: PayloadMatch[] = events.map((e) => ({
    identity: String(e.identity),
    modes: modesOf(String((e.event_attributes as Record<string, unknown> | undefined)?.payload ?? "")),
    subject: subjectOf(e.event_attributes),
  }));
  for (const h of hashes) {
    const body = await api.json<{ statements?: FoundStatement[] }>(
      `/archivist/v1/statements?payload_hash=${h.sha256}&page_size=50`,
    );
    for (const st of body.statements ?? [])
      if (!found.some((f) => f.identity === st.identity))
        found.push({ identity: st.identity, modes: h.modes, subject: st.subject });
  }
  return found;
}

/**
 * A place in the log, by one of its two numbers: `mmr`, the MMR position (what MMR receipts and
 * `merklelog_entry.commit.index` carry), or `entry`, the log entry (the leaf index checkpoints,
 * tiles and tlog-proofs count). Leaf 7 is at MMR position 11: the two are never taken for each other.
 */
export interface LogPlace {
  numbering: "mmr" | "entry";
  n: number;
}

/** The place in the log a finder's text names (`mmr 11`, `MMR position 11`, `log entry 7`, `entry 7`, `leaf 7`). */
export function parseLogPlace(text: string): LogPlace | undefined {
  const t = text.trim();
  const mmr = /^mmr(?:[\s_-]*(?:position|pos|index))?\s*#?(\d{1,15})$/i.exec(t)?.[1];
  if (mmr !== undefined) return { numbering: "mmr", n: Number(mmr) };
  const entry = /^(?:(?:log\s+)?entry|leaf(?:[\s_-]*index)?)\s*#?(\d{1,15})$/i.exec(t)?.[1];
  if (entry !== undefined) return { numbering: "entry", n: Number(entry) };
  return undefined;
}

/** A bare number: which of the two it means cannot be known, so the finder asks. */
export const isBareNumber = (text: string) => /^#?\d{1,15}$/.test(text.trim());

/** A place in the log in words: "MMR position 11" or "log entry 7". */
export const placeWords = (p: LogPlace) =>
  p.numbering === "mmr" ? `MMR position ${p.n}` : `log entry ${p.n}`;

/**
 * The record at a place of the caller's tenancy's log, through the log's entry routes (the MMR
 * position's, or the leaf's), which name the record only to a caller who may read it. The answer
 * carries both numbers: one that is not the number asked for is refused, so a record is never
 * opened for the other numbering.
 */
export async function recordAtPlace(api: PublicApi, tenant: string, place: LogPlace): Promise<string> {
  const route = place.numbering === "mmr" ? "entries" : "leaves";
  const words = placeWords(place);
  const { status, bytes } = await api.get(`/archivist/v1/merklelogs/${tenant}/${route}/${place.n}`);
  if (status === 404)
    throw new LookupError(
      place.numbering === "mmr"
        ? `no log entry at ${words} in your tenancy's log (an interior node of the MMR, or beyond the log)`
        : `no ${words} in your tenancy's log`,
    );
  if (status === 409) throw new LookupError(`${words} is not sealed yet: try again in a moment`);
  if (status !== 200) throw new LookupError(`the look-up of ${words} answered ${status}`, status);
  const body = JSON.parse(new TextDecoder().decode(bytes)) as {
    identity?: unknown;
    mmr_index?: unknown;
    leaf_index?: unknown;
  };
  const got = place.numbering === "mmr" ? body.mmr_index : body.leaf_index;
  if (got !== place.n) throw new LookupError(`the service answered ${words} with another entry`);
  const identity = String(body.identity ?? "");
  if (!identity) throw new LookupError(`${words} holds a record you may not read`);
  // Public records are named by their public path; the console opens every record by its own.
  return identity.replace(/^publicassets\//, "assets/");
}
