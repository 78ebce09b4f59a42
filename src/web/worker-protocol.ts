import type { PublicRecord } from "../lookup/public-api.js";
import type { ReceiptCheck } from "../lookup/receipts.js";
import type { BundleReport, ConsentReport } from "../verify/index.js";
import type { TrustInput } from "./console-trust.js";

/** Where the pages' verifying worker is served (one script for /verify and /console). */
export const WORKER_URL = "/verify/verify-worker.js";

/** A trail's receipts already read, by the receipt route's name of each record and by profile. */
export type Prefetched = Record<string, Partial<Record<"mmr" | "rfc9162", Uint8Array>>>;

/** What a page asks of the worker. */
export type WorkerAsk =
  /** /verify: an evidence bundle's text, judged by the policy typed on the page. */
  | { kind: "bundle"; text: string; policy: string }
  /**
   * The console: each record's receipts checked under the roots the panel's fields give, those not
   * already read (`prefetched`) read with the tab's token, in batches.
   */
  | {
      kind: "receipts";
      origin: string;
      token: string;
      records: PublicRecord[];
      prefetched: Prefetched;
      trust: TrustInput;
    };

/** What the worker answers: receipts' checks in batches (with the count so far), then done. */
export type WorkerAnswer =
  | { kind: "bundle"; report: BundleReport; consent: ConsentReport | undefined }
  | { kind: "progress"; done: number; total: number; checks: Array<[number, ReceiptCheck]> }
  | { kind: "done"; total: number }
  | { kind: "error"; message: string };
