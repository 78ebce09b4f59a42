import type { CheckpointJudgement } from "./checkpoint.js";
import { type TrustPolicy, witnessesRequired } from "./policy.js";
import { pinsSomething, type TrustRoots } from "./trust.js";
import { type TrustLevel, trustAtLeast } from "./verdict.js";

type Judged = Extract<CheckpointJudgement, { ok: true }>;

/** What a checkpoint leaves of the caller's roots and requirements, whichever evidence carried it. */
export interface CheckpointStanding {
  /** How far the checkpoint is anchored outside the evidence. */
  level: TrustLevel;
  /** Roots or requirements it does not meet. */
  policy: string[];
  notChecked: string[];
}

/** The origin a log names is `<host>/<path>`: an issuer URL accepts it when the origin starts with it. */
const originOf = (issuer: string) => issuer.replace(/^https?:\/\//i, "").replace(/\/+$/, "");

/**
 * A judged checkpoint against everything the caller asked for: the pinned log keys and the
 * witness quorum (C2SP tlog-policy), then the relying party's `min-trust`, `max-age` and
 * `issuer` lines. A requirement that cannot be established is not met: a checkpoint carries no
 * time of its own, so `max-age` reads the newest cosignature of the caller's witnesses.
 */
export function checkpointStanding(j: Judged, trust: TrustRoots, now: Date): CheckpointStanding {
  const p: TrustPolicy = trust.policy;
  const policy: string[] = [];
  const level: TrustLevel = j.witnessed ? "witnessed" : j.pinned ? "pinned" : "unpinned";
  if (pinsSomething(trust)) {
    if (j.policy) policy.push(j.policy);
    else if (!j.pinned)
      policy.push("the checkpoint is signed by no log key you pinned and cosigned by none of your witnesses");
  }
  const min = p.minTrust ?? (witnessesRequired(p) ? "witnessed" : undefined);
  if (min && !trustAtLeast(level, min) && !policy.length)
    policy.push(
      min === "witnessed"
        ? p.witnesses.size
          ? "min-trust witnessed: the checkpoint is not cosigned by a quorum of your witnesses"
          : "min-trust witnessed: the policy names no witness, so no checkpoint can be witnessed"
        : "min-trust pinned: the checkpoint is not signed by a log key you pinned",
    );
  if (p.maxAgeSeconds !== undefined) {
    if (j.cosignedAt === undefined)
      policy.push(
        `max-age ${p.maxAgeSeconds}s: no cosignature of your witnesses dates the checkpoint (a checkpoint carries no time of its own), so its age is not established`,
      );
    else {
      const age = now.getTime() / 1000 - j.cosignedAt;
      if (!(age <= p.maxAgeSeconds))
        policy.push(
          `max-age ${p.maxAgeSeconds}s: the checkpoint's newest cosignature is ${Math.round(age)}s old`,
        );
    }
  }
  if (p.issuers.length && !p.issuers.some((i) => j.checkpoint.origin.startsWith(`${originOf(i)}/`)))
    policy.push(`the log ${j.checkpoint.origin} is not of an issuer the policy accepts`);
  return {
    level,
    policy,
    notChecked: p.witnesses.size
      ? []
      : ["witness cosignatures: you named no witness; cosignature lines are not checked"],
  };
}
