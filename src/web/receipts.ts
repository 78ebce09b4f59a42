import { verifyRecordReceipt } from "../verify/index.js";
import type { PublicApi, PublicRecord } from "./public-api.js";

/** Whether an event's receipts (MMR and RFC 9162 profiles) prove it is in the service's log. */
export type ReceiptCheck =
  | { ok: true; mmrIndex: number; profiles: Array<"mmr" | "rfc9162"> }
  | { ok: false; reason: string };

/** Fetches the receipt of a public asset event and verifies it against the record and the published keys. */
export async function checkReceipt(api: PublicApi, record: PublicRecord): Promise<ReceiptCheck> {
  const m = /^(?:public)?assets\/([0-9a-f-]{36})\/events\/([0-9a-f-]{36})$/i.exec(String(record.identity));
  if (!m) return { ok: false, reason: `not an asset event: ${String(record.identity)}` };
  try {
    const keys = await api.keys();
    const profiles: Array<"mmr" | "rfc9162"> = [];
    let mmrIndex = -1;
    // Both profiles are checked: each proves inclusion on its own, from the same record.
    for (const profile of ["mmr", "rfc9162"] as const) {
      const { status, bytes } = await api.get(
        `/archivist/v1/receipts/assets/${m[1]}/events/${m[2]}?profile=${profile}`,
      );
      // 409: committed but not sealed yet, so there is nothing to check against.
      if (status === 409) return { ok: false, reason: "no receipt yet (the log has not sealed this event)" };
      if (status !== 200) return { ok: false, reason: `the ${profile} receipt look-up answered ${status}` };
      const v = verifyRecordReceipt(record, bytes, keys);
      if (!v.ok) return { ok: false, reason: `${profile} receipt: ${v.reason}` };
      if (v.profile !== profile)
        return { ok: false, reason: `asked for a ${profile} receipt, got ${v.profile}` };
      profiles.push(profile);
      mmrIndex = v.mmrIndex;
    }
    return { ok: true, mmrIndex, profiles };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}
