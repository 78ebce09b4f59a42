// The pages' verifying worker: an evidence bundle for /verify, a trail's receipts for the
// console, checked off the page's thread so the page stays usable and says how far it got.

import { fromBase64 } from "../formats/crypto/bytes.js";
import { PublicApi, type PublicRecord } from "../lookup/public-api.js";
import { checkReceipt, type ReceiptCheck } from "../lookup/receipts.js";
import { pinnedServiceKeys } from "../verify/house.js";
import { bundleConsentReport, keysFromKeySet, parseBundle, verifyBundle } from "../verify/index.js";
import { consoleTrustRoots } from "./console-trust.js";
import { memoKeyFactory } from "./memo-key.js";
import { policyRoots } from "./policy-roots.js";
import type { Prefetched, WorkerAnswer, WorkerAsk } from "./worker-protocol.js";

/** The worker's global, as far as this script uses it (the DOM lib types the page, not a worker). */
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WorkerAsk>) => void) | null;
  postMessage(answer: WorkerAnswer): void;
};

/** Receipt look-ups in flight at once when the trail's receipts were not all prefetched. */
const IN_FLIGHT = 6;
/** Checks are sent in batches: the page redraws its count once per batch, not per record. */
const BATCH = 25;

function checkBundle(text: string, policy: string): WorkerAnswer {
  const bundle = parseBundle(text);
  const roots = policyRoots(policy);
  const makeKey = memoKeyFactory();
  const report = verifyBundle(bundle, roots, new Date(), makeKey);
  if (bundle.subject.kind !== "vcon") return { kind: "bundle", report, consent: undefined };
  // A vCon's bundle also shows its consent and processing, read from the records that verified.
  const evidence = keysFromKeySet(fromBase64(bundle.keys.cose_key_set), makeKey);
  const consent = bundleConsentReport(bundle, report, {
    pinned: pinnedServiceKeys(roots, evidence),
    evidence,
  });
  return { kind: "bundle", report, consent };
}

/**
 * The look-up client of a trail's check: receipts and keys the page already holds are answered
 * from memory, anything else is fetched with the tab's token.
 */
function trailApi(ask: Extract<WorkerAsk, { kind: "receipts" }>): PublicApi {
  const held = (bytes: Uint8Array) => Promise.resolve(new Response(bytes as BufferSource, { status: 200 }));
  return new PublicApi(ask.origin, {
    makeKey: memoKeyFactory(),
    fetch(url, init) {
      const path = url.slice(ask.origin.length);
      if (path === "/.well-known/scitt-keys" && ask.keySet) return held(ask.keySet);
      const m = /^\/archivist\/v1\/receipts\/(.+)\?profile=(mmr|rfc9162)$/.exec(path);
      const bytes = m
        ? (ask.prefetched as Prefetched)[m[1] as string]?.[m[2] as "mmr" | "rfc9162"]
        : undefined;
      if (bytes) return held(bytes);
      return fetch(url, { ...init, headers: { authorization: `Bearer ${ask.token}` } });
    },
  });
}

async function checkTrail(ask: Extract<WorkerAsk, { kind: "receipts" }>): Promise<void> {
  const trust = consoleTrustRoots(ask.trust);
  const api = trailApi(ask);
  const total = ask.records.length;
  let next = 0;
  let done = 0;
  let batch: Array<[number, ReceiptCheck]> = [];
  const flush = () => {
    scope.postMessage({ kind: "progress", done, total, checks: batch });
    batch = [];
  };
  const lane = async () => {
    for (let i = next++; i < total; i = next++) {
      const check = await checkReceipt(api, ask.records[i] as PublicRecord, trust);
      done++;
      batch.push([i, check]);
      if (batch.length >= BATCH) flush();
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, total) }, lane));
  flush();
  scope.postMessage({ kind: "done", total });
}

scope.onmessage = (e) => {
  const ask = e.data;
  const work =
    ask.kind === "bundle"
      ? Promise.resolve().then(() => scope.postMessage(checkBundle(ask.text, ask.policy)))
      : checkTrail(ask);
  work.catch((err: unknown) => scope.postMessage({ kind: "error", message: (err as Error).message }));
};
