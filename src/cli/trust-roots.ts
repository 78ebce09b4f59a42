import { readFileSync } from "node:fs";
import type { Command as Cli } from "commander";
import { nodePublicKeyFromJwk } from "../core/node/crypto.js";
import { CodedError } from "../formats/coded-error.js";
import {
  emptyPolicy,
  keysFromKeySet,
  PolicyError,
  parsePolicy,
  type TrustRoots,
  type VerificationVerdict,
  witnessGroup,
} from "../verify/index.js";

/** The trust-root options every verification takes (all from the caller, never from the evidence). */
export interface TrustFlags {
  keys?: string;
  logKey?: string;
  witness?: string[];
  quorum?: string;
  policy?: string;
}

/** A file the caller named, or a TrustRootError naming why it cannot be read. */
export class TrustRootError extends CodedError<"TRUST_ROOT_UNREADABLE"> {
  readonly code = "TRUST_ROOT_UNREADABLE";
}

function read(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new TrustRootError(`cannot read ${what} ${file}: ${code === "ENOENT" ? "no such file" : code}`);
  }
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Declares --keys, --log-key, --witness, --quorum and --policy on a command. */
export function trustOptions(
  cli: Cli,
  keysHelp = "the service's COSE key set (GET /.well-known/scitt-keys), pinned",
): Cli {
  return cli
    .option("--keys <file>", keysHelp)
    .option("--log-key <file>", "the log's checkpoint key (a vkey), pinned")
    .option(
      "--witness <vkey>",
      "a witness you trust; its cosignature counts toward --quorum (repeatable)",
      collect,
      [],
    )
    .option("--quorum <n>", "how many --witness cosignatures a checkpoint needs (default: all of them)")
    .option(
      "--policy <file>",
      "a trust policy: C2SP tlog-policy lines plus service-key, issuer, min-receipts, max-age, min-trust, require complete (docs/verification.md)",
    );
}

/** The caller's trust roots from the flags; none given is a valid answer (the verdict then says unpinned). */
export function trustRoots(v: TrustFlags): TrustRoots {
  const described: string[] = [];
  let policy = emptyPolicy();
  try {
    if (v.policy) {
      policy = parsePolicy(read(v.policy, "the policy").toString("utf8"));
      described.push(`--policy ${v.policy}`);
    }
    if (v.logKey) {
      policy.logKeys.push(read(v.logKey, "the log key").toString("utf8").trim());
      described.push(`--log-key ${v.logKey}`);
    }
    const witnesses = v.witness ?? [];
    if (witnesses.length) {
      const k = v.quorum === undefined ? witnesses.length : Number(v.quorum);
      witnessGroup(policy, witnesses, k);
      described.push(`${k} of ${witnesses.length} --witness`);
    } else if (v.quorum !== undefined) throw new TrustRootError("--quorum counts --witness keys: give them");
  } catch (err) {
    if (err instanceof PolicyError) throw new TrustRootError(err.message);
    throw err;
  }
  let serviceKeys: TrustRoots["serviceKeys"];
  if (v.keys) {
    try {
      serviceKeys = keysFromKeySet(new Uint8Array(read(v.keys, "the key set")), nodePublicKeyFromJwk);
    } catch (err) {
      if (err instanceof TrustRootError) throw err;
      throw new TrustRootError(`${v.keys} is not a COSE key set: ${(err as Error).message}`);
    }
    if (serviceKeys.size === 0) throw new TrustRootError(`${v.keys} holds no key`);
    described.push(`--keys ${v.keys}`);
  }
  return { policy, ...(serviceKeys ? { serviceKeys } : {}), described };
}

/** The verdict object's shared lines: trust, fingerprints, what was not checked, unsigned values, then the summary. */
export function verdictText(v: VerificationVerdict): string[] {
  if (v.code === "cannot-evaluate") return [v.summary];
  const lines: string[] = [];
  lines.push(`  trust roots: ${v.trust.roots.length ? v.trust.roots.join(", ") : "none given"}`);
  for (const f of v.trust.fingerprints)
    lines.push(
      `  key ${f.kind} ${f.id}: ${f.fingerprint}${f.pinned ? " (pinned)" : v.trust.roots.length ? " (not pinned)" : ""}`,
    );
  for (const p of v.problems.slice(1)) lines.push(`  also: ${p}`);
  for (const n of v.not_checked) lines.push(`  not checked: ${n}`);
  for (const u of v.unsigned) lines.push(`  unsigned: ${u}`);
  lines.push(v.summary);
  return lines;
}
