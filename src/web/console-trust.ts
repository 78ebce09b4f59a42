import { parseVkey } from "../formats/tlog/keys.js";
import {
  emptyPolicy,
  PolicyError,
  parsePolicy,
  pinsSomething,
  type TrustRoots,
  witnessGroup,
} from "../verify/index.js";

/** What the console's trust-roots panel holds: the auditor's own roots, as `archivist verify` takes them. */
export interface TrustInput {
  /** A policy file's text: C2SP tlog-policy lines and this project's relying-party lines. */
  policy: string;
  /** The log's checkpoint key (a vkey), as `--log-key`. */
  logKey: string;
  /** Witness cosignature vkeys, one a line, as `--witness`. */
  witnesses: string;
  /** How many of them must cosign (empty: all), as `--quorum`. */
  quorum: string;
  /** Service (COSE) key fingerprints, one a line: `<kid> sha256:<hex>` (or `<kid>: sha256:<hex>`, as the console shows them). */
  fingerprints: string;
}

/** The panel empty: no roots of the auditor's (what `noTrust()` is). */
export const NO_TRUST_INPUT: TrustInput = {
  policy: "",
  logKey: "",
  witnesses: "",
  quorum: "",
  fingerprints: "",
};

const lines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));

/**
 * The trust roots the panel's fields give, judged by the verifier's own policy parser: a policy
 * (with the fingerprints as its `service-key` lines), the pinned log key, the witnesses and their
 * quorum. Anything it cannot read is refused with a PolicyError naming it, never half taken: a
 * typo must not leave an auditor trusting less than they think, nor more.
 */
export function consoleTrustRoots(input: TrustInput): TrustRoots {
  const described: string[] = [];
  const prints = lines(input.fingerprints).map((l, i) => {
    const m = /^(\S+?):?\s+(sha256:[0-9a-f]{64})$/i.exec(l);
    if (!m)
      throw new PolicyError(`key fingerprint ${i + 1}: expected <kid> sha256:<64 hex digits>, got "${l}"`);
    return `service-key ${m[1]} ${(m[2] as string).toLowerCase()}`;
  });
  const policyText = [input.policy, ...prints].join("\n");
  const policy = policyText.trim() ? parsePolicy(policyText) : emptyPolicy();
  if (input.policy.trim()) described.push("the policy given here");
  if (prints.length) described.push(`${prints.length} service key fingerprint(s)`);
  const logKey = input.logKey.trim();
  if (logKey) {
    if (lines(logKey).length !== 1) throw new PolicyError("the log key is one vkey line");
    try {
      parseVkey(logKey);
    } catch (err) {
      throw new PolicyError(`the log key: ${(err as Error).message}`);
    }
    policy.logKeys.push(logKey);
    described.push("the log key given here");
  }
  const witnesses = lines(input.witnesses);
  const quorum = input.quorum.trim();
  if (witnesses.length) {
    const k = quorum === "" ? witnesses.length : Number(quorum);
    if (!Number.isInteger(k) || k < 1 || k > witnesses.length)
      throw new PolicyError(`the quorum is a whole number from 1 to ${witnesses.length}`);
    witnessGroup(policy, witnesses, k);
    described.push(`${k} of ${witnesses.length} witness(es)`);
  } else if (quorum !== "") throw new PolicyError("a quorum counts witnesses: give their keys");
  return { policy, described };
}

/** A line saying which roots the console's verdicts are judged by. */
export function trustSummary(roots: TrustRoots): string {
  if (!pinsSomething(roots))
    return "No trust roots given: every verdict here is SELF-CONSISTENT at best, under the keys this service serves.";
  return `Every verdict here is judged by your roots: ${roots.described.join(", ")}.`;
}
