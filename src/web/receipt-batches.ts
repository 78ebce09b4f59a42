import { fromBase64 } from "../formats/crypto/bytes.js";
import type { Prefetched } from "./worker-protocol.js";

/** Records a batch asks for: what `POST /archivist/v1/receipts:batch` takes at most. */
export const RECEIPT_BATCH = 100;

const PROFILES = ["mmr", "rfc9162"] as const;

interface BatchAnswer {
  receipts?: Array<{ record?: unknown; status?: unknown; receipt?: unknown }>;
}

/**
 * The receipts of up to `RECEIPT_BATCH` records, both profiles, read with the tab's token in two
 * requests (a 1,000-record trail was 2,000 look-ups, then one evidence bundle the service gathered
 * and checked whole before the first card). Only receipts the service gave are held: a record it
 * refused or has not sealed, or a batch that failed (a service without the route, a rate limit),
 * is looked up alone as before, and that look-up's answer is its verdict.
 */
export async function receiptBatch(
  origin: string,
  token: string,
  records: readonly string[],
  into: Prefetched,
): Promise<void> {
  const asked = new Set(records);
  await Promise.all(
    PROFILES.map(async (profile) => {
      let body: BatchAnswer;
      try {
        const res = await fetch(`${origin}/archivist/v1/receipts:batch`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ profile, records }),
        });
        if (res.status !== 200) return;
        body = (await res.json()) as BatchAnswer;
      } catch {
        return;
      }
      for (const r of Array.isArray(body.receipts) ? body.receipts : []) {
        if (r.status !== 200 || typeof r.record !== "string" || typeof r.receipt !== "string") continue;
        // Only what was asked is kept: an answer never stands for a record not in the batch.
        if (!asked.has(r.record)) continue;
        // Held under the receipt route's name of the record (a public asset's events under assets/).
        const name = r.record.replace(/^publicassets\//, "assets/");
        into[name] = { ...into[name], [profile]: fromBase64(r.receipt) };
      }
    }),
  );
}
