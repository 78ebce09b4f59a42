import { isUuid } from "../formats/ids.js";
import { signedAttributes } from "../formats/record/api-record.js";
import type { PublicApi, PublicRecord } from "./public-api.js";
import { checkReceipt, type ReceiptCheck } from "./receipts.js";
import { sha256Hex } from "./sha256.js";
import { VCON_FORMS, type VconForm } from "./vcon-forms.js";

export type { VconForm } from "./vcon-forms.js";

/** One public event of a vCon's trail, oldest first. */
interface TrailStep {
  event: string;
  operation: string;
  payload: string;
  timestamp_declared: string;
  timestamp_accepted: string;
  confirmation_status: string;
  principal_declared: unknown;
  /** Names of the file's forms whose hash is this step's payload. */
  matches: string[];
  receipt: ReceiptCheck;
}

/** What the service's public records say about a vCon. */
export interface VconReport {
  kind: "vcon";
  uuid: string;
  subject: string;
  hashes: Array<{ form: string; sha256: string }>;
  matched_operation?: string;
  trail: TrailStep[];
  ok: boolean;
  verdict: string;
}

/** The uuid of `vcon://<uuid>` or a bare uuid, else undefined. */
export function vconUuidOf(text: string): string | undefined {
  const t = text.trim().replace(/^vcon:\/\//i, "");
  return isUuid(t) ? t.toLowerCase() : undefined;
}

/** The uuid a vCon file declares; throws when the bytes are not a vCon JSON object. */
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A JWS payload (base64url) as JSON, or undefined. */
function jwsPayload(payload: unknown): unknown {
  if (typeof payload !== "string") return undefined;
  try {
    const b64 = payload.replace(/-/g, "+").replace(/_/g, "/");
    const bin = atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, "="));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
  } catch {
    return undefined;
  }
}

/**
 * A vCon's uuid by its form: an unsigned vCon (its `uuid` beside `vcon`, or `parties` and
 * `dialog`), a signed one (JWS general JSON: the uuid in a signature's header or in the
 * payload) or an encrypted one (JWE general JSON: the uuid in the unprotected header).
 */
function vconUuidIn(v: unknown): string | undefined {
  if (!isObject(v)) return undefined;
  const plain = "vcon" in v || Array.isArray(v.parties) || Array.isArray(v.dialog);
  if (plain && typeof v.uuid === "string") return v.uuid;
  if (typeof v.payload === "string" && Array.isArray(v.signatures)) {
    for (const s of v.signatures)
      if (isObject(s) && isObject(s.header) && typeof s.header.uuid === "string") return s.header.uuid;
    const inner = jwsPayload(v.payload);
    return isObject(inner) && typeof inner.uuid === "string" ? inner.uuid : undefined;
  }
  if (typeof v.ciphertext === "string" && isObject(v.unprotected) && typeof v.unprotected.uuid === "string")
    return v.unprotected.uuid;
  return undefined;
}

export function uuidOfVconFile(raw: Uint8Array): { uuid: string; parsed: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    throw new Error("the file is not JSON, so it is not a vCon");
  }
  const uuid = vconUuidIn(parsed);
  const id = uuid === undefined ? undefined : vconUuidOf(uuid);
  if (!id) throw new Error("the vCon has no valid uuid");
  return { uuid: id, parsed };
}

/** True when bytes look like a vCon by its form (see vconUuidIn), for picking a check. */
export function looksLikeVcon(raw: Uint8Array): boolean {
  try {
    return vconUuidIn(JSON.parse(new TextDecoder().decode(raw))) !== undefined;
  } catch {
    return false;
  }
}

async function stepOf(
  api: PublicApi,
  e: PublicRecord,
  hashes: VconReport["hashes"],
  subject: string,
): Promise<TrailStep> {
  // What the record's leaf signs, and only that: the service answering the listing is not trusted
  // to list only the vCon's records, nor to leave a record's unsigned fields alone.
  const a = signedAttributes(e) ?? {};
  const payload = String(a.payload ?? "").toLowerCase();
  return {
    event: String(e.identity),
    operation: String(a.vcon_operation ?? a.arc_display_type ?? ""),
    payload,
    timestamp_declared: String(a.timestamp_declared ?? e.timestamp_declared ?? ""),
    timestamp_accepted: String(e.timestamp_accepted ?? ""),
    confirmation_status: String(e.confirmation_status ?? ""),
    principal_declared: e.principal_declared,
    matches: hashes.filter((h) => h.sha256 === payload).map((h) => h.form),
    receipt:
      a.subject === subject
        ? await checkReceipt(api, e)
        : {
            ok: false,
            code: "tampered",
            reason: `the record is of ${typeof a.subject === "string" ? a.subject : "no subject"}, not of ${subject}`,
          },
  };
}

/**
 * Where a vCon with no public record can still be checked: the conserver records vCons privately
 * unless its link asks for public assets, and a look-up without a token finds none of those.
 */
const PRIVATE_VCON_HELP =
  "a vCon recorded privately (the conserver's default) is not listed for anyone: check it with a token " +
  "that may read it (the auditor console at /console, or archivist export vcon://<uuid> --token … " +
  "then archivist verify bundle), or with its evidence bundle exported by someone who may (drop it on " +
  "/verify); a conserver link with public_assets: true records vCons anyone can check here";

function verdictOf(r: Omit<VconReport, "ok" | "verdict">, haveFile: boolean) {
  if (r.trail.length === 0)
    return { ok: false, verdict: `NOT FOUND: no public records for ${r.subject}; ${PRIVATE_VCON_HELP}` };
  const bad = r.trail.filter((s) => !s.receipt.ok);
  if (bad.length)
    return {
      ok: false,
      verdict: `NOT VERIFIED: ${bad.length} of ${r.trail.length} step(s) without a valid receipt`,
    };
  if (haveFile && !r.matched_operation)
    return { ok: false, verdict: "NO MATCH: the file's hash is not any recorded version of this vCon" };
  const what = r.matched_operation ? `; the file is the version recorded by ${r.matched_operation}` : "";
  return { ok: true, verdict: `VERIFIED: ${r.trail.length} step(s), every receipt valid${what}` };
}

/** Lists a vCon's public trail and verifies each step; with the file, says which operation recorded it. */
export async function verifyVcon(
  api: PublicApi,
  input: { uuid: string } | { file: Uint8Array },
  forms: readonly VconForm[] = VCON_FORMS,
): Promise<VconReport> {
  let uuid: string;
  let hashes: VconReport["hashes"] = [];
  if ("file" in input) {
    uuid = uuidOfVconFile(input.file).uuid;
    hashes = forms.flatMap((form) => {
      try {
        return [{ form: form.name, sha256: sha256Hex(form.serialise(input.file)) }];
      } catch {
        // A form that cannot represent this file (JSON Python would refuse) just does not apply.
        return [];
      }
    });
  } else {
    const id = vconUuidOf(input.uuid);
    if (!id) throw new Error("give a vCon uuid or vcon://<uuid>");
    uuid = id;
  }
  const subject = `vcon://${uuid}`;
  // The listing is newest first; a trail reads oldest first.
  const events = (
    await api.list(
      `/archivist/v2/publicassets/-/events?event_attributes.subject=${encodeURIComponent(subject)}`,
      "events",
    )
  ).reverse();
  const trail: TrailStep[] = [];
  for (const e of events) trail.push(await stepOf(api, e, hashes, subject));
  const matched = trail.filter((s) => s.matches.length).at(-1);
  const base = { kind: "vcon" as const, uuid, subject, hashes, trail };
  const r = matched ? { ...base, matched_operation: matched.operation } : base;
  return { ...r, ...verdictOf(r, "file" in input) };
}
