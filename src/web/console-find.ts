import { HASH_MODES, type HashMode, hashPreimage } from "../core/vcon/preimage.js";
import {
  isLosslessObject,
  LookupError,
  type LosslessObject,
  type PublicApi,
  parseLossless,
  sha256Hex,
} from "../verify/primitives.js";
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
 * The record at a position of the caller's tenancy's log (`log entry N`, the MMR index receipts
 * name), through the log's entry route, which names the record only to a caller who may read it.
 */
export async function recordAtIndex(api: PublicApi, tenant: string, index: number): Promise<string> {
  const path = `/archivist/v1/merklelogs/${tenant}/entries/${index}`;
  const { status, bytes } = await api.get(path);
  if (status === 404) throw new LookupError(`no log entry ${index} in your tenancy's log`);
  if (status === 409) throw new LookupError(`log entry ${index} is not sealed yet: try again in a moment`);
  if (status !== 200) throw new LookupError(`the log entry look-up answered ${status}`, status);
  const identity = String(
    (JSON.parse(new TextDecoder().decode(bytes)) as { identity?: unknown }).identity ?? "",
  );
  if (!identity) throw new LookupError(`log entry ${index} holds a record you may not read`);
  // Public records are named by their public path; the console opens every record by its own.
  return identity.replace(/^publicassets\//, "assets/");
}
