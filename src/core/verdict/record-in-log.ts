import { FIELDS_V3, FREE_EVENT_HASHED_FIELDS } from "../record/index.js";
import { verifyCheckpoint, verifyRecordInTiles } from "../tlog/log-check.js";
import type { TileFetch } from "../tlog/tiles.js";
import type { ApiRecord } from "../verify/record.js";
import { judgeCheckpoint } from "./checkpoint.js";
import { logKeyFingerprint } from "./fingerprint.js";
import { pinsSomething, type TrustRoots } from "./trust.js";
import { judge, type TrustLevel, type VerificationVerdict } from "./verdict.js";

/** The record's top-level fields no signature covers (its leaf is made of the others). */
export function unsignedFields(record: ApiRecord): string[] {
  const free = String(record.identity ?? "").startsWith("events/");
  const hashed = new Set<string>(free ? FREE_EVENT_HASHED_FIELDS : FIELDS_V3);
  return Object.keys(record).filter((k) => !hashed.has(k));
}

export interface RecordInLogReport extends VerificationVerdict {
  identity: string;
  /** Where the record is, when it was found: its leaf, and the checkpoint's origin and size (signed). */
  leaf_index?: number;
  origin?: string;
  size?: number;
  cosigners: string[];
}

/**
 * A record (its API JSON) in a log's tiles under a checkpoint, judged against the caller's
 * roots. `carriedKey` is the key the mirror or the log serves for itself: enough to show the
 * tiles are self-consistent, never to trust them (a forged mirror serves its own key under the
 * genuine origin). A pinned log key, or a quorum of trusted witnesses, is what makes it verified.
 */
export async function verifyRecordInLog(
  record: ApiRecord,
  note: string,
  carriedKey: string | undefined,
  trust: TrustRoots,
  fetch: TileFetch,
): Promise<RecordInLogReport> {
  const identity = String(record.identity ?? "");
  const tampered: string[] = [];
  const policy: string[] = [];
  const j = judgeCheckpoint(note, carriedKey, trust.policy);
  const fingerprints = [
    ...(carriedKey
      ? [
          logKeyFingerprint(
            carriedKey,
            trust.policy.logKeys.some((k) => k.trim() === carriedKey.trim()),
          ),
        ]
      : []),
    ...trust.policy.logKeys
      .filter((k) => k.trim() !== carriedKey?.trim())
      .map((k) => logKeyFingerprint(k, true)),
  ];
  let level: TrustLevel = "unpinned";
  let found: { leafIndex: number; size: number; origin: string } | undefined;
  if (!j.ok) tampered.push(j.reason);
  else {
    // The record's leaf under the checkpoint, with whichever key signed it (already judged above).
    const signer = [...(carriedKey ? [carriedKey] : []), ...trust.policy.logKeys].find(
      (k) => verifyCheckpoint(note, { logVkey: k, witnessVkeys: [], quorum: 0 }).ok,
    );
    const v = signer
      ? await verifyRecordInTiles(record, note, { logVkey: signer, witnessVkeys: [], quorum: 0 }, fetch)
      : ({ ok: false, reason: "no key verifies the checkpoint" } as const);
    if (!v.ok) tampered.push(v.reason);
    else found = { leafIndex: v.leafIndex, size: v.size, origin: v.origin };
    if (j.policy && pinsSomething(trust)) policy.push(j.policy);
    level = j.witnessed ? "witnessed" : j.pinned ? "pinned" : "unpinned";
    if (pinsSomething(trust) && !j.pinned && !j.policy)
      policy.push("the checkpoint is signed by no log key you pinned and cosigned by none of your witnesses");
  }
  const unsigned = unsignedFields(record).map((f) => `${f}: not part of the signed leaf`);
  const verdict = judge({
    tampered,
    policy,
    pinned: pinsSomething(trust),
    level,
    roots: trust.described,
    fingerprints,
    notChecked: trust.policy.witnesses.size
      ? []
      : ["witness cosignatures: you named no witness; cosignature lines are not checked"],
    unsigned,
    proven: found
      ? `${identity} is leaf ${found.leafIndex} of ${found.origin} at size ${found.size}${j.ok && j.cosigners.length ? `, cosigned by ${j.cosigners.join(", ")}` : ""}`
      : identity,
  });
  return {
    ...verdict,
    identity,
    ...(found ? { leaf_index: found.leafIndex, origin: found.origin, size: found.size } : {}),
    cosigners: j.ok ? j.cosigners : [],
  };
}
