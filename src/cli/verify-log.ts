import { decodeSeal } from "../formats/cose/seal.js";
import { isUuid } from "../formats/ids.js";
import { verifyConsistency as verifyTreeConsistency } from "../formats/rfc9162/verify.js";
import type { Checkpoint } from "../formats/tlog/checkpoint.js";
import { keyedVerdict } from "../lookup/keyed-verdict.js";
import { LookupError } from "../lookup/public-api.js";
import {
  type ChainPeriod,
  type TrustRoots,
  type VerificationVerdict,
  verifyCheckpoint,
  verifyMmrConsistency,
  verifyPeriodChain,
  verifySeal,
} from "../verify/index.js";
import { UsageError } from "./usage.js";
import {
  fetchBytes,
  fetchJson,
  lookups,
  type Options,
  readInput,
  serviceKeys,
  VerifyFailed,
} from "./verify-inputs.js";

// `archivist verify --log`: a whole log replayed from the service's API (its seals, each signed and
// consistent with the one before), checked against checkpoints it published and its chain of periods.

/** A log named as the API names tenancies (`tenant/<uuid>`) or by its bare uuid. */
function logTenant(log: string): string {
  const uuid = log.replace(/^tenant\//, "");
  if (!isUuid(uuid)) throw new UsageError(`--log takes tenant/<uuid> or <uuid>, got "${log}"`);
  return uuid.toLowerCase();
}

/** The seals of a log as the API lists them, each fetched once. */
async function fetchSeals(base: string, tenant: string): Promise<Uint8Array[]> {
  const body = (await fetchJson(`${base}/archivist/v1/merklelogs/${tenant}/seals`)) as {
    mmr_sizes?: unknown;
  };
  if (!Array.isArray(body.mmr_sizes) || !body.mmr_sizes.every((n) => Number.isSafeInteger(n)))
    throw new VerifyFailed(`${base} did not answer a list of seal sizes for tenant/${tenant}`);
  const sizes = body.mmr_sizes as number[];
  // Nothing to check is not a verified log: an unknown tenancy has no seals either.
  if (sizes.length === 0)
    throw new VerifyFailed(
      `log tenant/${tenant} has no seals at ${base} (unknown log, or nothing sealed yet)`,
    );
  const seals: Uint8Array[] = [];
  for (const [i, size] of sizes.entries()) {
    seals.push(await fetchBytes(`${base}/archivist/v1/merklelogs/${tenant}/seals/latest?mmr_size=${size}`));
    if (process.stderr.isTTY) process.stderr.write(`\rfetched ${i + 1}/${sizes.length} seals`);
  }
  if (process.stderr.isTTY) process.stderr.write("\n");
  return seals;
}

/** A checkpoint the log is checked against, and the first one that verifies under the given keys. */
function checkedCheckpoint(
  note: string,
  what: string,
  vkeys: string[],
  witnesses: string[],
  quorum: number,
): Checkpoint {
  let reason = "no log key given";
  for (const logVkey of vkeys) {
    const r = verifyCheckpoint(note, { logVkey, witnessVkeys: witnesses, quorum });
    if (r.ok) return r.checkpoint;
    reason = r.reason;
  }
  throw new VerifyFailed(`${what}: ${reason}`);
}

/**
 * After a restore (docs/keys.md): is the log the service serves now the one it published? Each
 * `--checkpoint` (a checkpoint the log published and witnesses cosigned, e.g. a witness's copy)
 * must be a prefix of the service's current tree: not larger, and consistent by an RFC 9162
 * proof. Answers what is wrong, or undefined; and what was shown.
 */
async function checkPublishedCheckpoints(
  base: string,
  tenant: string,
  v: Options,
  trust: TrustRoots,
): Promise<{ problem?: string; proven: string }> {
  const files = v.checkpoint ?? [];
  if (files.length === 0) return { proven: "" };
  const logPath = `${base}/archivist/v1/merklelogs/${tenant}`;
  const vkeys = await logVkeys(logPath, trust);
  const witnesses = v.witness ?? [];
  const quorum = v.quorum === undefined ? witnesses.length : Number(v.quorum);
  const currentNote = new TextDecoder().decode(await fetchBytes(`${logPath}/tlog/checkpoint`));
  const current = checkedCheckpoint(currentNote, "the service's checkpoint", vkeys, [], 0);
  const sizes: number[] = [];
  for (const file of files) {
    const note = readInput(file, "the checkpoint").toString("utf8");
    const published = checkedCheckpoint(note, `checkpoint ${file}`, vkeys, witnesses, quorum);
    if (published.origin !== current.origin)
      return {
        problem: `checkpoint ${file} is of log ${published.origin}, the service's of ${current.origin}`,
        proven: "",
      };
    if (current.size < published.size)
      return {
        problem: `the service's log (${current.size} entries) is behind the published checkpoint ${file} (${published.size} entries): entries ${current.size} to ${published.size - 1} are missing, so it is not the published log (a restore of an older backup?)`,
        proven: "",
      };
    let consistent = current.size === published.size && Buffer.compare(current.root, published.root) === 0;
    if (current.size > published.size) {
      const answer = (await fetchJson(
        `${logPath}/consistency?profile=rfc9162&from=${published.size}&to=${current.size}`,
      )) as { proof?: unknown };
      const proof = Array.isArray(answer.proof)
        ? answer.proof.map((h) => new Uint8Array(Buffer.from(String(h), "hex")))
        : [];
      consistent = verifyTreeConsistency(published.size, current.size, published.root, current.root, proof);
    }
    if (!consistent)
      return {
        problem: `the service's log (${current.size} entries) is not consistent with the published checkpoint ${file} (${published.size} entries): it is a fork of the published log`,
        proven: "",
      };
    sizes.push(published.size);
  }
  return {
    proven: `; its tree (${current.size} entries) extends the published checkpoint${sizes.length > 1 ? "s" : ""} of ${sizes.join(", ")} entries`,
  };
}

/** The log's keys to check its checkpoints with: pinned (--log-key, a policy), else every one the log publishes (not pinned). */
async function logVkeys(logPath: string, trust: TrustRoots): Promise<string[]> {
  if (trust.policy.logKeys.length > 0) return trust.policy.logKeys;
  return (
    ((await fetchJson(`${logPath}/tlog/keys`)) as { keys?: Array<{ vkey?: unknown }> }).keys
      ?.map((k) => String(k.vkey))
      .filter((k) => k.length > 0) ?? []
  );
}

const strings = (x: unknown): string[] | undefined =>
  Array.isArray(x) && x.every((h) => typeof h === "string") ? (x as string[]) : undefined;

/**
 * A log with closed periods (docs/scaling.md): follows its chain of period roots from the
 * service's `tlog/periods` (core `verifyPeriodChain`): every final checkpoint signed by the log,
 * consistent with the published checkpoint, and linked by the next period's first entry.
 */
async function checkPeriodChain(
  base: string,
  tenant: string,
  v: Options,
  trust: TrustRoots,
): Promise<{ problem?: string; proven: string }> {
  const logPath = `${base}/archivist/v1/merklelogs/${tenant}`;
  let answer: { head?: unknown; periods?: unknown };
  try {
    answer = (await lookups.json<unknown>(`${logPath}/tlog/periods`)) as typeof answer;
  } catch (err) {
    // A log not yet checkpointed, or a service from before periods: no chain is claimed.
    if (err instanceof LookupError && err.status === 404) return { proven: "" };
    if (err instanceof LookupError) throw new VerifyFailed(err.message);
    throw err;
  }
  if (typeof answer.head !== "string" || !Array.isArray(answer.periods))
    throw new VerifyFailed(`${base} did not answer the periods of tenant/${tenant}`);
  const periods: ChainPeriod[] = (answer.periods as Array<Record<string, unknown>>).map((p) => ({
    period: Number(p.period),
    start: Number(p.start),
    end: p.end === undefined ? undefined : Number(p.end),
    checkpoint: typeof p.checkpoint === "string" ? p.checkpoint : undefined,
    consistency: strings(p.consistency),
    linkInclusion: strings(p.link_inclusion),
  }));
  if (periods.length <= 1) return { proven: "" };
  const witnesses = v.witness ?? [];
  const quorum = v.quorum === undefined ? witnesses.length : Number(v.quorum);
  let reason = "no log key given";
  for (const logVkey of await logVkeys(logPath, trust)) {
    const r = verifyPeriodChain({ head: answer.head, periods }, { logVkey, witnessVkeys: witnesses, quorum });
    if (r.ok)
      return {
        proven: `; its ${r.periods.length} periods chain (${r.periods
          .map((p) => (p.end === undefined ? `${p.start}…` : `${p.start}–${p.end - 1}`))
          .join(
            ", ",
          )}), each closed one's final checkpoint signed, linked by the next period's first entry and consistent with the checkpoint of ${r.head.size} entries`,
      };
    reason = r.reason;
  }
  return { problem: `the chain of period roots: ${reason}`, proven: "" };
}

/** Replays a log's seals from the API: each signed by the service and consistent with the previous one. */
export async function verifyLog(log: string, v: Options, trust: TrustRoots): Promise<VerificationVerdict> {
  if (!v.url) throw new UsageError("--url <service> is required with --log");
  const tenant = logTenant(log);
  const base = v.url.replace(/\/$/, "");
  const keys = await serviceKeys(trust, base);
  const published = await checkPublishedCheckpoints(base, tenant, v, trust);
  const chain = await checkPeriodChain(base, tenant, v, trust);
  const seals = await fetchSeals(base, tenant);
  const proofs = new Map<string, Uint8Array[][]>();
  let previous: ReturnType<typeof decodeSeal> | undefined;
  for (const seal of seals) {
    const state = decodeSeal(seal);
    if (previous) {
      const proof = (await fetchJson(
        `${base}/archivist/v1/merklelogs/${tenant}/consistency?from=${previous.mmrSize}&to=${state.mmrSize}`,
      )) as { paths?: unknown };
      if (
        !Array.isArray(proof.paths) ||
        !proof.paths.every((p) => Array.isArray(p) && p.every((h) => typeof h === "string"))
      )
        throw new VerifyFailed(
          `${base} did not answer a consistency proof from ${previous.mmrSize} to ${state.mmrSize}`,
        );
      proofs.set(
        `${previous.mmrSize}-${state.mmrSize}`,
        (proof.paths as string[][]).map((p) => p.map((h) => new Uint8Array(Buffer.from(h, "hex")))),
      );
    }
    previous = state;
  }
  return keyedVerdict(trust, keys, (k) => {
    if (published.problem) return { ok: false, reason: published.problem };
    if (chain.problem) return { ok: false, reason: chain.problem };
    const signers = [...k.values()];
    let before: ReturnType<typeof decodeSeal> | undefined;
    for (const seal of seals) {
      const state = decodeSeal(seal);
      if (!signers.some((key) => verifySeal(seal, key)))
        return {
          ok: false,
          reason: `the seal of MMR size ${state.mmrSize} is not signed by the keys checked with`,
        };
      const paths = before ? proofs.get(`${before.mmrSize}-${state.mmrSize}`) : undefined;
      if (
        before &&
        !(paths && verifyMmrConsistency(before.mmrSize, state.mmrSize, before.peaks, state.peaks, paths))
      )
        return {
          ok: false,
          reason: `the seal of MMR size ${state.mmrSize} is not consistent with the one of MMR size ${before.mmrSize}`,
        };
      before = state;
    }
    return {
      ok: true,
      proven: `log tenant/${tenant}: ${seals.length} seal(s), each signed and consistent with the one before, the latest of MMR size ${before?.mmrSize ?? 0}${published.proven}${chain.proven}`,
    };
  });
}
