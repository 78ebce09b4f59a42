import { CodedError } from "../../formats/coded-error.js";
import { parseVkey } from "../../formats/tlog/keys.js";
import type { TrustLevel } from "./verdict.js";

/** A witness, or a group of which at least `k` members must have witnessed (C2SP tlog-policy). */
export type Quorum = { witness: string } | { group: string; k: number; members: Quorum[] };

/**
 * Whom the caller trusts and what it requires: the caller's, never the evidence's. Log keys,
 * witnesses and the quorum follow C2SP tlog-policy; the rest is the relying party's policy.
 *
 * @example
 * ```ts
 * const policy: TrustPolicy = parsePolicy(policyText);
 * policy.minReceipts = 2;
 * ```
 */
export interface TrustPolicy {
  /** Pinned log (checkpoint) keys, as vkeys. */
  logKeys: string[];
  /** Witness vkeys by the policy's name for them. */
  witnesses: Map<string, string>;
  /** The cosignatures a checkpoint needs; "none" when no witness is required; undefined when unsaid. */
  quorum?: Quorum | "none";
  /** Pinned COSE keys of the service (seals, receipts): `sha256:<hex>` of each key's SPKI, by kid. */
  serviceKeys: Array<{ kid: string; fingerprint: string }>;
  /** Accepted receipt issuers (the service's base URL); any when empty. */
  issuers: string[];
  /** Valid receipts each record needs (default 1). */
  minReceipts: number;
  /** The newest seal or checkpoint must be at most this old (seconds). */
  maxAgeSeconds?: number;
  /** The least trust level every record must reach. */
  minTrust?: TrustLevel;
  /**
   * `require complete`: a bundle must be proven complete (an index lookup of its subject's key,
   * verified under a log key pinned here, listing no entry the bundle lacks).
   */
  requireComplete?: boolean;
}

/**
 * A policy file that cannot be read as one: refused whole, so a typo never weakens it.
 *
 * @example
 * ```ts
 * try { parsePolicy(text); } catch (e) { if (e instanceof PolicyError) console.error(e.message); }
 * ```
 */
export class PolicyError extends CodedError<"POLICY_INVALID"> {
  readonly code = "POLICY_INVALID";
}

/**
 * @example
 * ```ts
 * const roots: TrustRoots = { policy: emptyPolicy(), serviceKeys: keysFromKeySet(keySet), described: ["--keys"] };
 * ```
 */
export const emptyPolicy = (): TrustPolicy => ({
  logKeys: [],
  witnesses: new Map(),
  serviceKeys: [],
  issuers: [],
  minReceipts: 1,
});

/** Whether the policy pins anything at all (a key or a witness): without, nothing is "verified". */
export const pinsAnything = (p: TrustPolicy): boolean =>
  p.logKeys.length > 0 || p.witnesses.size > 0 || p.serviceKeys.length > 0;

const DURATION = /^([1-9][0-9]*)([smhd])$/;
const SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;
const MAX_NAMES = 64;

/**
 * Parses a policy file: C2SP tlog-policy (`log`, `witness`, `group`, `quorum`) with this
 * project's relying-party lines (`service-key`, `issuer`, `min-receipts`, `max-age`,
 * `min-trust`, `require complete`). A line it does not know is refused, so a typo never weakens a policy.
 *
 * @example
 * ```ts
 * const policy = parsePolicy("log archivist.example+1a2b3c4d+AQ...\nquorum none\nmin-receipts 1\n");
 * ```
 */
export function parsePolicy(text: string): TrustPolicy {
  const r: Reading = { p: emptyPolicy(), names: new Map(), keysSeen: new Set(), quorumLines: 0 };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the spec allows tab and newline only
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text))
    throw new PolicyError("the policy holds control characters");
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const [word, ...args] = line.split(/[ \t]+/);
    const at = `policy line ${i + 1}`;
    if (!readTlogLine(r, word, args, at) && !readRelyingPartyLine(r.p, word, args, at))
      throw new PolicyError(`${at}: unknown keyword "${word}"`);
    if (r.names.size > MAX_NAMES || r.p.logKeys.length > MAX_NAMES)
      throw new PolicyError(`the policy defines more than ${MAX_NAMES} names`);
  }
  if (r.quorumLines > 1) throw new PolicyError("a policy has at most one quorum line");
  if (r.p.witnesses.size > 0 && r.p.quorum === undefined)
    throw new PolicyError("the policy lists witnesses but no quorum line");
  return r.p;
}

/** A policy as it is read, line by line: what it holds so far and the names and keys defined. */
interface Reading {
  readonly p: TrustPolicy;
  /** Witnesses and groups by name: a group or the quorum names only what a line before defined. */
  readonly names: Map<string, Quorum>;
  readonly keysSeen: Set<string>;
  quorumLines: number;
}

/** A key is its name and material: one service signs each of its logs (origins) with one key. */
function uniqueKey(r: Reading, vkey: string, at: string): void {
  let id: string;
  try {
    const k = parseVkey(vkey);
    id = `${k.name} ${Array.from(k.publicKey, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  } catch (err) {
    throw new PolicyError(`${at}: ${(err as Error).message}`);
  }
  if (r.keysSeen.has(id)) throw new PolicyError(`${at}: a duplicate key`);
  r.keysSeen.add(id);
}

/** A C2SP tlog-policy line (`log`, `witness`, `group`, `quorum`); false when the word is not one. */
function readTlogLine(r: Reading, word: string | undefined, args: string[], at: string): boolean {
  const p = r.p;
  switch (word) {
    case "log": {
      const vkey = args[0];
      if (!vkey || args.length > 2) throw new PolicyError(`${at}: log <vkey> [<url>]`);
      uniqueKey(r, vkey, at);
      p.logKeys.push(vkey);
      return true;
    }
    case "witness": {
      const [name, vkey] = args;
      if (!name || !vkey || args.length > 3) throw new PolicyError(`${at}: witness <name> <vkey> [<url>]`);
      if (name === "none" || r.names.has(name)) throw new PolicyError(`${at}: the name ${name} is taken`);
      uniqueKey(r, vkey, at);
      p.witnesses.set(name, vkey);
      r.names.set(name, { witness: name });
      return true;
    }
    case "group":
      readGroup(r, args, at);
      return true;
    case "quorum": {
      const [name] = args;
      if (!name || args.length !== 1) throw new PolicyError(`${at}: quorum <name>|none`);
      r.quorumLines++;
      if (name === "none") p.quorum = "none";
      else {
        const q = r.names.get(name);
        if (!q) throw new PolicyError(`${at}: ${name} is not defined on a line before`);
        p.quorum = q;
      }
      return true;
    }
    default:
      return false;
  }
}

/** `group <name> all|any|<k> <name>...`: a threshold of members each defined on a line before. */
function readGroup(r: Reading, args: string[], at: string): void {
  const [name, threshold, ...members] = args;
  if (!name || !threshold || members.length === 0)
    throw new PolicyError(`${at}: group <name> all|any|<k> <name>...`);
  if (name === "none" || r.names.has(name)) throw new PolicyError(`${at}: the name ${name} is taken`);
  if (new Set(members).size !== members.length) throw new PolicyError(`${at}: a member listed twice`);
  const resolved = members.map((m) => {
    const q = r.names.get(m);
    if (!q) throw new PolicyError(`${at}: ${m} is not defined on a line before`);
    return q;
  });
  const k =
    threshold === "all"
      ? members.length
      : threshold === "any"
        ? 1
        : /^[1-9][0-9]*$/.test(threshold)
          ? Number(threshold)
          : Number.NaN;
  if (!(k >= 1 && k <= members.length))
    throw new PolicyError(`${at}: the threshold must be all, any or 1..${members.length}`);
  r.names.set(name, { group: name, k, members: resolved });
}

/** A relying party's line (`service-key`, `issuer`, `min-receipts`, `max-age`, `min-trust`, `require`); false when not one. */
function readRelyingPartyLine(p: TrustPolicy, word: string | undefined, args: string[], at: string): boolean {
  switch (word) {
    case "service-key": {
      const [kid, fingerprint] = args;
      if (kid === undefined || !/^sha256:[0-9a-f]{64}$/.test(fingerprint ?? "") || args.length !== 2)
        throw new PolicyError(`${at}: service-key <kid> sha256:<64 hex digits>`);
      p.serviceKeys.push({ kid, fingerprint: fingerprint as string });
      return true;
    }
    case "issuer":
      if (args.length !== 1) throw new PolicyError(`${at}: issuer <url>`);
      p.issuers.push(args[0] as string);
      return true;
    case "min-receipts":
      if (args.length !== 1 || !/^[1-9][0-9]?$/.test(args[0] ?? ""))
        throw new PolicyError(`${at}: min-receipts <1..99>`);
      p.minReceipts = Number(args[0]);
      return true;
    case "max-age": {
      const m = DURATION.exec(args[0] ?? "");
      if (args.length !== 1 || !m) throw new PolicyError(`${at}: max-age <n>s|m|h|d`);
      p.maxAgeSeconds = Number(m[1]) * SECONDS[m[2] as keyof typeof SECONDS];
      return true;
    }
    case "min-trust":
      if (args.length !== 1 || (args[0] !== "pinned" && args[0] !== "witnessed"))
        throw new PolicyError(`${at}: min-trust pinned|witnessed`);
      p.minTrust = args[0];
      return true;
    case "require":
      // `require <what>`: a later requirement joins as another word, not another keyword.
      if (args.length !== 1 || args[0] !== "complete") throw new PolicyError(`${at}: require complete`);
      p.requireComplete = true;
      return true;
    default:
      return false;
  }
}

/** Whether the policy requires witness cosignatures at all. */
export const witnessesRequired = (p: TrustPolicy): boolean => p.witnesses.size > 0 && p.quorum !== "none";

/**
 * Whether the witnesses named in `cosigners` (policy names) satisfy the quorum. Groups may name
 * earlier groups any number of times, so each group is judged once (a walk of every path of 40
 * nested groups never ends).
 */
export function quorumMet(q: Quorum | "none" | undefined, cosigners: ReadonlySet<string>): boolean {
  if (q === undefined || q === "none") return true;
  const judged = new Map<Quorum, boolean>();
  const met = (x: Quorum): boolean => {
    if ("witness" in x) return cosigners.has(x.witness);
    let r = judged.get(x);
    if (r === undefined) {
      let n = 0;
      for (const m of x.members) if (met(m)) n++;
      r = n >= x.k;
      judged.set(x, r);
    }
    return r;
  };
  return met(q);
}

/** A group of `k` of `vkeys`, as `--witness` and `--quorum` give them. */
export function witnessGroup(p: TrustPolicy, vkeys: string[], k: number): void {
  if (vkeys.length === 0) return;
  if (!Number.isSafeInteger(k) || k < 1 || k > vkeys.length)
    throw new PolicyError(`--quorum must be 1..${vkeys.length}`);
  // A key listed twice would count its one cosignature twice toward the quorum.
  const keyOf = (vkey: string) => {
    const k = parseVkey(vkey);
    return `${k.name} ${Array.from(k.publicKey, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  };
  const seen = new Set([...p.witnesses.values()].map(keyOf));
  const members: Quorum[] = vkeys.map((vkey, i) => {
    const name = `witness-${i + 1}`;
    let key: string;
    try {
      key = keyOf(vkey);
    } catch (err) {
      throw new PolicyError(`witness ${i + 1}: ${(err as Error).message}`);
    }
    if (seen.has(key)) throw new PolicyError(`witness ${i + 1}: a witness already given`);
    seen.add(key);
    p.witnesses.set(name, vkey.trim());
    return { witness: name };
  });
  const group: Quorum = { group: "command-line witnesses", k, members };
  p.quorum =
    p.quorum && p.quorum !== "none"
      ? { group: "policy and command line", k: 2, members: [p.quorum, group] }
      : group;
}
