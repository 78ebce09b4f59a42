// The pages' verifying worker: an evidence bundle for /verify, a trail's receipts for the
// console, checked off the page's thread so the page stays usable and says how far it got.

import { fromBase64 } from "../formats/crypto/bytes.js";
import { PublicApi, type PublicRecord } from "../lookup/public-api.js";
import { checkReceipt, type ReceiptCheck } from "../lookup/receipts.js";
import {
  bundleConsentReport,
  keysFromKeySet,
  parseBundle,
  pinnedServiceKeys,
  verifyBundle,
} from "../verify/index.js";
import { consoleTrustRoots } from "./console-trust.js";
import { policyRoots } from "./policy-roots.js";
import { RECEIPT_BATCH, receiptBatch } from "./receipt-batches.js";
import { SignatureMemo } from "./signature-memo.js";
import type { Prefetched, WorkerAnswer, WorkerAsk } from "./worker-protocol.js";

/** The worker's global, as far as this script uses it (the DOM lib types the page, not a worker). */
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WorkerAsk>) => void) | null;
  postMessage(answer: WorkerAnswer): void;
};

/** Receipt look-ups in flight at once for the records a batch did not answer. */
const IN_FLIGHT = 6;

/** An evidence bundle judged under the page's policy, its signatures checked natively where possible. */
async function checkBundle(text: string, policy: string): Promise<WorkerAnswer> {
  const bundle = parseBundle(text);
  const roots = policyRoots(policy);
  const memo = new SignatureMemo();
  const now = new Date();
  return memo.judge((): WorkerAnswer => {
    const report = verifyBundle(bundle, roots, now, memo.makeKey);
    if (bundle.subject.kind !== "vcon") return { kind: "bundle", report, consent: undefined };
    // A vCon's bundle also shows its consent and processing, read from the records that verified.
    const evidence = keysFromKeySet(fromBase64(bundle.keys.cose_key_set), memo.makeKey);
    const consent = bundleConsentReport(bundle, report, {
      pinned: pinnedServiceKeys(roots, evidence),
      evidence,
    });
    return { kind: "bundle", report, consent };
  });
}

type TrailAsk = Extract<WorkerAsk, { kind: "receipts" }>;

/**
 * The look-up client of a trail's check: receipts already held are answered from memory,
 * anything else is fetched with the tab's token.
 */
function trailApi(ask: TrailAsk, held: Prefetched, memo: SignatureMemo): PublicApi {
  const answer = (bytes: Uint8Array) => Promise.resolve(new Response(bytes as BufferSource, { status: 200 }));
  return new PublicApi(ask.origin, {
    makeKey: memo.makeKey,
    fetch(url, init) {
      const path = url.slice(ask.origin.length);
      const m = /^\/archivist\/v1\/receipts\/(.+)\?profile=(mmr|rfc9162)$/.exec(path);
      const bytes = m ? held[m[1] as string]?.[m[2] as "mmr" | "rfc9162"] : undefined;
      if (bytes) return answer(bytes);
      return fetch(url, { ...init, headers: { authorization: `Bearer ${ask.token}` } });
    },
  });
}

/** Each record's check, `IN_FLIGHT` at a time (those whose receipts are held need no request). */
async function checkAll(
  api: PublicApi,
  records: PublicRecord[],
  trust: ReturnType<typeof consoleTrustRoots>,
): Promise<ReceiptCheck[]> {
  const out: ReceiptCheck[] = new Array(records.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < records.length; i = next++)
      out[i] = await checkReceipt(api, records[i] as PublicRecord, trust);
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, records.length) }, lane));
  return out;
}

/**
 * A trail's receipts, a batch of records at a time: the next batch's receipts are read while
 * this one's are checked, and each batch's checks are sent as one progress message.
 */
async function checkTrail(ask: TrailAsk): Promise<void> {
  const trust = consoleTrustRoots(ask.trust);
  const memo = new SignatureMemo();
  const held: Prefetched = { ...ask.prefetched };
  const api = trailApi(ask, held, memo);
  const total = ask.records.length;
  const read = (at: number) => {
    const missing = ask.records
      .slice(at, at + RECEIPT_BATCH)
      .map((r) => String(r.identity))
      .filter((id) => !held[id.replace(/^publicassets\//, "assets/")]);
    return missing.length ? receiptBatch(ask.origin, ask.token, missing, held) : Promise.resolve();
  };
  let reading = read(0);
  for (let at = 0; at < total; at += RECEIPT_BATCH) {
    await reading;
    if (at + RECEIPT_BATCH < total) reading = read(at + RECEIPT_BATCH);
    const records = ask.records.slice(at, at + RECEIPT_BATCH);
    const checks = await memo.judge(() => checkAll(api, records, trust));
    const done = at + records.length;
    scope.postMessage({ kind: "progress", done, total, checks: checks.map((c, i) => [at + i, c]) });
  }
  scope.postMessage({ kind: "done", total });
}

scope.onmessage = (e) => {
  const ask = e.data;
  const work =
    ask.kind === "bundle"
      ? checkBundle(ask.text, ask.policy).then((a) => scope.postMessage(a))
      : checkTrail(ask);
  work.catch((err: unknown) => scope.postMessage({ kind: "error", message: (err as Error).message }));
};
