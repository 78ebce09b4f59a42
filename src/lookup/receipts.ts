import { type TrustRoots, type VerdictCode, verifyRecordReceipt } from "../verify/index.js";
import { recordReceiptVerdict, serviceKeysFor } from "./keyed-verdict.js";
import type { PublicApi, PublicRecord } from "./public-api.js";

/**
 * Whether a record's receipts (MMR and RFC 9162 profiles) prove it is in the service's log, in
 * the verdict vocabulary: `verified` only under keys the caller pinned, `self-consistent-unpinned`
 * under the keys the service serves, `tampered` when a receipt does not verify, `cannot-evaluate`
 * when there is none to check (not sealed yet, or the look-up failed). `receipts` holds the bytes
 * checked, by profile, for saving.
 */
export type ReceiptCheck =
  | {
      ok: true;
      code: VerdictCode;
      mmrIndex: number;
      profiles: Array<"mmr" | "rfc9162">;
      receipts: Partial<Record<"mmr" | "rfc9162", Uint8Array>>;
      /** What the check left to another tool, when it left something. */
      note?: string;
    }
  | { ok: false; code: VerdictCode; reason: string };

/** The receipt route of an asset event or an asset-free event (a registered statement among them). */
function receiptPath(identity: string): string | undefined {
  const asset = /^(?:public)?assets\/([0-9a-f-]{36})\/events\/([0-9a-f-]{36})$/i.exec(identity);
  if (asset) return `/archivist/v1/receipts/assets/${asset[1]}/events/${asset[2]}`;
  const free = /^events\/([0-9a-f-]{36})$/i.exec(identity);
  return free ? `/archivist/v1/receipts/events/${free[1]}` : undefined;
}

const REGISTERED_NOTE =
  "its RFC 9162 receipt commits to the statement's payload, not to this record: archivist verify statement.cose --receipt receipt.cose checks it with the statement";

/** A statement registered through SCRAPI, kept as an asset-free event naming its issuer. */
const isRegisteredStatement = (r: PublicRecord) =>
  String(r.identity).startsWith("events/") &&
  typeof (r.attributes as Record<string, unknown> | undefined)?.scitt_issuer === "string";

/**
 * Fetches a record's receipts and verifies them against the record and the keys the look-up
 * trusts. With `trust` (the console's roots), both are checked with the keys the service serves
 * and the verdict is the caller's roots': `verified` under service keys they pin, `policy-failed`
 * when the receipt is signed by none of them.
 */
export async function checkReceipt(
  api: PublicApi,
  record: PublicRecord,
  trust?: TrustRoots,
): Promise<ReceiptCheck> {
  const path = receiptPath(String(record.identity));
  if (!path)
    return {
      ok: false,
      code: "cannot-evaluate",
      reason: `not a record with a receipt: ${String(record.identity)}`,
    };
  try {
    const keys = trust ? await api.fetchedKeys() : await api.keys();
    const profiles: Array<"mmr" | "rfc9162"> = [];
    const receipts: Partial<Record<"mmr" | "rfc9162", Uint8Array>> = {};
    let mmrIndex = -1;
    // Both profiles are checked: each proves inclusion on its own, from the same record. A
    // registered statement's RFC 9162 leaf is its payload's hash, checked with the statement.
    const registered = isRegisteredStatement(record);
    for (const profile of registered ? (["mmr"] as const) : (["mmr", "rfc9162"] as const)) {
      const { status, bytes } = await api.get(`${path}?profile=${profile}`);
      // 409: committed but not sealed yet, so there is nothing to check against.
      if (status === 409)
        return {
          ok: false,
          code: "cannot-evaluate",
          reason: "no receipt yet (the log has not sealed this record)",
        };
      if (status !== 200)
        return {
          ok: false,
          code: "cannot-evaluate",
          reason: `the ${profile} receipt look-up answered ${status}`,
        };
      const v = verifyRecordReceipt(record, bytes, keys);
      if (!v.ok) return { ok: false, code: "tampered", reason: `${profile} receipt: ${v.reason}` };
      if (v.profile !== profile)
        return { ok: false, code: "tampered", reason: `asked for a ${profile} receipt, got ${v.profile}` };
      profiles.push(profile);
      receipts[profile] = bytes;
      mmrIndex = v.mmrIndex;
    }
    let code: VerdictCode = api.pinned ? "verified" : "self-consistent-unpinned";
    const mmr = receipts.mmr;
    if (trust && mmr) {
      const v = recordReceiptVerdict(trust, serviceKeysFor(trust, keys), record, mmr);
      if (v.code !== "verified" && v.code !== "self-consistent-unpinned")
        return { ok: false, code: v.code, reason: v.problems[0] ?? v.summary };
      code = v.code;
    }
    return {
      ok: true,
      code,
      mmrIndex,
      profiles,
      receipts,
      ...(registered ? { note: REGISTERED_NOTE } : {}),
    };
  } catch (err) {
    return { ok: false, code: "cannot-evaluate", reason: (err as Error).message };
  }
}
