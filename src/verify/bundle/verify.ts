import type { EvidenceBundle } from "../../formats/bundle/format.js";
import { type PublicKey, type PublicKeyFactory, publicKeyFromJwk } from "../../formats/crypto/public-key.js";
import { keysFromKeySet } from "../receipts/index.js";
import {
  coseKeyFingerprints,
  judge,
  type KeyFingerprint,
  keyFingerprint,
  noTrust,
  pinsSomething,
  type TrustLevel,
  type TrustRoots,
  trustAtLeast,
} from "../verdict/index.js";
import { keepingChecks } from "./checked-signatures.js";
import { checkCompleteness } from "./completeness.js";
import { Findings } from "./failures.js";
import { checkLogs, judgeCheckpoints, logVerdicts } from "./logs.js";
import { BundleError, bytes } from "./parse.js";
import { checkRecords, recordVerdicts, statementsNotChecked } from "./records.js";
import type { BundleReport, LogCheck, RecordCheck } from "./report.js";

// The bundle's check as its named steps, in order (verifyBundle, below); the steps over its logs,
// its records and its completeness live beside it (logs.ts, records.ts, completeness.ts).

/** Step 1: the keys the bundle carries (they show only that it is self-consistent). */
function readCarriedKeys(bundle: EvidenceBundle, makeKey: PublicKeyFactory) {
  const keySet = bytes(bundle.keys.cose_key_set);
  try {
    return { keySet, carried: keepingChecks(keysFromKeySet(keySet, makeKey)) };
  } catch (err) {
    throw new BundleError(`the bundle's keys cannot be read: ${(err as Error).message}`);
  }
}

/**
 * Step 2: the keys the caller pinned (given by value, or the bundle's whose fingerprint the
 * policy names), their fingerprints, and whether a signer's kid is one of them with the same key.
 */
function pinKeys(trust: TrustRoots, keySet: Uint8Array, carried: Map<string, PublicKey>) {
  const policy = trust.policy;
  const byPrint = (kid: string, print: string) =>
    policy.serviceKeys.some((p) => p.kid === kid && p.fingerprint === print);
  const fingerprints: KeyFingerprint[] = coseKeyFingerprints(keySet, carried, (kid, print) =>
    trust.serviceKeys ? false : byPrint(kid, print),
  );
  let pinnedKeys: Map<string, PublicKey> | undefined;
  if (trust.serviceKeys) {
    pinnedKeys = trust.serviceKeys;
    for (const [kid, key] of trust.serviceKeys) {
      const [pinned] = coseKeyFingerprints(new Uint8Array(), new Map([[kid, key]]), () => true).slice(1);
      if (!pinned) continue;
      // The bundle's own key of that kid, the very key pinned: one line, marked pinned, not two.
      const same = fingerprints.find(
        (f) => f.kind === "cose-key" && f.id === kid && f.fingerprint === pinned.fingerprint,
      );
      if (same) same.pinned = true;
      else fingerprints.push(pinned);
    }
  } else if (policy.serviceKeys.length > 0) {
    pinnedKeys = new Map(
      [...carried].filter(([kid]) =>
        fingerprints.some((f) => f.kind === "cose-key" && f.id === kid && f.pinned),
      ),
    );
  }
  // A signature the bundle's key of that kid verified is the pinned key's when the keys are one.
  const isPinned = (kid: string) => {
    const pin = pinnedKeys?.get(kid);
    const own = carried.get(kid);
    return (
      pin !== undefined && own !== undefined && (pin === own || keyFingerprint(pin) === keyFingerprint(own))
    );
  };
  return { fingerprints, pinning: pinnedKeys !== undefined, isPinned };
}

/** Step 8: the service, the receipts' signed issuer, which the bundle's fields must agree with. */
function serviceOf(bundle: EvidenceBundle, issuers: Set<string>, found: Findings): string {
  const service = [...issuers][0] ?? "";
  if (issuers.size > 1)
    found.tampered("ISSUERS_DIFFER", `the receipts name more than one issuer: ${[...issuers].join(", ")}`);
  else if (service && bundle.service !== service)
    found.tampered(
      "SERVICE_MISMATCH",
      `the bundle says it is from ${bundle.service}, its receipts were issued by ${service}`,
    );
  for (const a of bundle.assets ?? []) {
    const id = String(a.identity ?? "");
    if (!bundle.records.some(({ record }) => String(record.identity ?? "").startsWith(`${id}/events/`)))
      found.tampered(
        "ASSET_UNRELATED",
        `assets[]: ${id || "an asset without identity"} is not the asset of any bundled record`,
      );
  }
  return service;
}

/** Step 10: the relying party's requirements: issuers, the seals' age, and the trust each record needs. */
function requirements(
  trust: TrustRoots,
  service: string,
  logs: LogCheck[],
  records: RecordCheck[],
  now: Date,
  found: Findings,
  notChecked: string[],
) {
  const policy = trust.policy;
  if (policy.issuers.length > 0 && service && !policy.issuers.includes(service))
    found.policy("ISSUER_NOT_ACCEPTED", `the receipts' issuer ${service} is not one the policy accepts`);
  if (policy.maxAgeSeconds !== undefined)
    for (const l of logs) {
      const age = (now.getTime() - Date.parse(l.latest_time)) / 1000;
      if (l.ok && !(age <= policy.maxAgeSeconds))
        found.policy(
          "SEAL_TOO_OLD",
          `log ${l.log}: its latest seal (${l.latest_time}) is older than the policy's ${policy.maxAgeSeconds}s`,
        );
    }
  const pinned = pinsSomething(trust);
  const wantsWitness = policy.witnesses.size > 0 && policy.quorum !== "none";
  const minTrust: TrustLevel = policy.minTrust ?? (wantsWitness ? "witnessed" : "pinned");
  if (pinned)
    for (const r of records)
      if (r.ok && !trustAtLeast(r.trust, minTrust)) {
        if (minTrust === "witnessed")
          found.policy(
            "NOT_WITNESSED",
            `${r.identity}: not under a checkpoint cosigned by your witnesses' quorum`,
          );
        else found.policy("NOT_PINNED", `${r.identity}: not proven under any key you pinned`);
      }
  if (!wantsWitness)
    notChecked.push("witness cosignatures: you named no witness; cosignature lines are counted, not checked");
  return pinned;
}

/**
 * Verifies an evidence bundle offline. The bundle's own keys show only that it is
 * self-consistent (anyone can make such a bundle); trust comes from the caller's roots: the
 * service's COSE keys (`serviceKeys`, or pinned by fingerprint in the policy), the log's
 * checkpoint key and witnesses (C2SP tlog-policy), and the relying party's requirements.
 * Everything the verdict states is signed: each record's subject is checked against the
 * bundle's subject, the service against the receipts' issuer; the rest is labelled unsigned.
 * `makeKey` makes the bundle's keys: portable, unless a Node program passes node:crypto's.
 *
 * The check runs as named steps, each failure a code (`BUNDLE_FAILURES`); every signature is
 * verified once, with the bundle's keys, and a pinned key counts when it is the key that signed.
 *
 * @example
 * ```ts
 * const report = verifyBundle(parseBundle(text), { policy: parsePolicy(policyText), described: ["policy"] });
 * if (report.code !== "verified") console.error(report.summary, report.problems);
 * ```
 */
export function verifyBundle(
  bundle: EvidenceBundle,
  trust: TrustRoots = noTrust(),
  now = new Date(),
  makeKey: PublicKeyFactory = publicKeyFromJwk,
): BundleReport {
  const found = new Findings();
  const notChecked: string[] = [];
  const unsigned: string[] = [
    "created_at: when the bundle says it was exported",
    "assets[]: the asset records are context; no signature covers them",
  ];
  if (bundle.service_verdict !== undefined)
    unsigned.push(
      "service_verdict: the service's judgement of its own evidence when it exported it; this verdict is made anew and never reads it",
    );

  const { keySet, carried } = readCarriedKeys(bundle, makeKey);
  const pins = pinKeys(trust, keySet, carried);
  const judged = judgeCheckpoints(bundle, trust, pins.fingerprints, found);
  const unknown: string[] = [];
  const checkedLogs = checkLogs(bundle, carried, unknown);
  const checkedRecords = checkRecords(
    bundle,
    carried,
    checkedLogs,
    judged.checkpoints,
    pins.isPinned,
    unknown,
  );
  notChecked.push(...unknown.map((u) => `${u} (unknown to this verifier)`));
  notChecked.push(...statementsNotChecked(bundle, checkedRecords));
  for (const name of Object.keys(bundle.extensions ?? {}))
    notChecked.push(`extension "${name}" (unknown to this verifier)`);

  const logs = logVerdicts(checkedLogs, judged, pins, found);
  const { records, issuers } = recordVerdicts(bundle, checkedRecords, trust, pins.pinning, found, unsigned);
  const service = serviceOf(bundle, issuers, found);
  const completeness = checkCompleteness(
    bundle,
    checkedRecords,
    judged.checkpoints,
    trust.policy,
    found,
    notChecked,
  );
  const pinned = requirements(trust, service, logs, records, now, found, notChecked);
  const level: TrustLevel =
    records.length && records.every((r) => r.trust === "witnessed") ? "witnessed" : "pinned";
  const subject = bundle.subject.id;
  return {
    ...judge({
      tampered: found.details("tampered"),
      policy: found.details("policy"),
      cannotEvaluate: records.length === 0 ? ["the bundle holds no records"] : [],
      pinned,
      level,
      roots: trust.described,
      fingerprints: pins.fingerprints,
      notChecked,
      unsigned,
      proven: `${records.length} record(s) of ${subject}, each in the log under a signed seal, every seal consistent with the latest; ${completeness.detail}`,
    }),
    failures: found.all,
    subject,
    service,
    created_at: bundle.created_at,
    records,
    logs,
    completeness,
  };
}
