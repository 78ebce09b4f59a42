import { verifyRecordReceipt } from "../core/verify/index.js";
import type { PublicApi, PublicRecord } from "./public-api.js";

/** Whether an event's receipt proves it is in the service's log. */
export type ReceiptCheck = { ok: true; mmrIndex: number } | { ok: false; reason: string };

/** Fetches the receipt of a public asset event and verifies it against the record and the published keys. */
export async function checkReceipt(api: PublicApi, record: PublicRecord): Promise<ReceiptCheck> {
  const m = /^(?:public)?assets\/([0-9a-f-]{36})\/events\/([0-9a-f-]{36})$/i.exec(String(record.identity));
  if (!m) return { ok: false, reason: `not an asset event: ${String(record.identity)}` };
  try {
    const { status, bytes } = await api.get(`/archivist/v1/receipts/assets/${m[1]}/events/${m[2]}`);
    // 409: committed but not sealed yet, so there is nothing to check against.
    if (status === 409) return { ok: false, reason: "no receipt yet (the log has not sealed this event)" };
    if (status !== 200) return { ok: false, reason: `the receipt look-up answered ${status}` };
    const v = verifyRecordReceipt(record, bytes, await api.keys());
    return v.ok ? { ok: true, mmrIndex: v.mmrIndex } : { ok: false, reason: v.reason };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}
