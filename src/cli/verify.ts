import { createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { Command as Cli } from "commander";
import { nodePublicKey, nodePublicKeyFromJwk } from "../core/node/crypto.js";
import { CodedError } from "../formats/coded-error.js";
import { decodeSeal } from "../formats/cose/seal.js";
import { isUuid } from "../formats/ids.js";
import { verifyConsistency as verifyTreeConsistency } from "../formats/rfc9162/verify.js";
import type { Checkpoint } from "../formats/tlog/checkpoint.js";
import {
  keyedVerdict,
  recordReceiptVerdict,
  type ServiceKeys,
  serviceKeysFor,
  statementVerdict,
  tlogProofVerdict,
} from "../lookup/keyed-verdict.js";
import { LookupError, PublicApi } from "../lookup/public-api.js";
import { type ChainPeriod, cannotEvaluate, verifyPeriodChain } from "../verify/house.js";
import {
  keysFromKeySet,
  type PublicKey,
  type TrustRoots,
  type VerificationVerdict,
  verifyCheckpoint,
  verifyMmrConsistency,
  verifySeal,
} from "../verify/index.js";
import type { Exit } from "./commands.js";
import { declared } from "./declare.js";
import { verifyRecordInMirror } from "./mirror.js";
import { type TrustFlags, trustOptions, trustRoots, verdictText } from "./trust-roots.js";
import { UsageError } from "./usage.js";
import { EXIT_HELP } from "./verdict-help.js";

interface Options extends TrustFlags {
  receipt?: string;
  payload?: string;
  issuerKey?: string[];
  url?: string;
  log?: string;
  json?: boolean;
  mirror?: string;
  tlogProof?: string;
  statement?: string;
  checkpoint?: string[];
}

/** Input that cannot be judged (an unreadable file, a service not answering): verdict cannot-evaluate. */
class VerifyFailed extends CodedError<"VERIFY_FAILED"> {
  readonly code = "VERIFY_FAILED";
}

const KEYS_HINT =
  "give the service's public keys: --keys <scitt-keys.cbor> (pinned), or --url <service> (fetches its /.well-known/scitt-keys, not pinned)";

// What the verifier reads from a service: keys, seals, seal lists and proofs, all far smaller.
// A service (or whatever answers at its address) cannot make the verifier buffer more, or wait longer.
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
const ANSWER_TIMEOUT_MS = 60_000;

// The one look-up client, here reading whole URLs (its base is empty: each call names its service).
const lookups = new PublicApi("", { maxBytes: MAX_ANSWER_BYTES, timeoutMs: ANSWER_TIMEOUT_MS });

/** A look-up that failed (refused, unknown host, a status) is input that cannot be judged. */
async function looked<T>(look: () => Promise<T>): Promise<T> {
  try {
    return await look();
  } catch (err) {
    if (err instanceof LookupError) throw new VerifyFailed(err.message);
    throw err;
  }
}

const fetchBytes = (url: string): Promise<Uint8Array> => looked(() => lookups.bytes(url));
const fetchJson = (url: string): Promise<unknown> => looked(() => lookups.json<unknown>(url));

function readInput(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new VerifyFailed(`cannot read ${what} ${file}: ${code === "ENOENT" ? "no such file" : code}`);
  }
}

/**
 * The service's COSE keys to check with, and which of them the caller pinned: `--keys` are
 * pinned as given; keys fetched from `--url` are pinned only where the policy names their
 * fingerprint. Fetched keys are what the service says today, not a trust root.
 */
async function serviceKeys(trust: TrustRoots, url: string | undefined): Promise<ServiceKeys> {
  if (trust.serviceKeys) return serviceKeysFor(trust);
  if (!url) throw new UsageError(KEYS_HINT);
  const fetched = keysFromKeySet(
    await fetchBytes(`${url.replace(/\/$/, "")}/.well-known/scitt-keys`),
    nodePublicKeyFromJwk,
  );
  return serviceKeysFor(trust, fetched);
}

/** Statement issuer keys given as `kid=<file>` (PEM or JWK), on top of the service's published keys. */
function issuerKeys(specs: string[] | undefined, published: Map<string, PublicKey>): Map<string, PublicKey> {
  const out = new Map(published);
  for (const spec of specs ?? []) {
    const eq = spec.indexOf("=");
    if (eq <= 0) throw new UsageError("--issuer-key takes kid=<file> (a PEM or JWK public key)");
    const text = readInput(spec.slice(eq + 1), "the issuer key").toString("utf8");
    try {
      out.set(
        spec.slice(0, eq),
        nodePublicKey(
          createPublicKey(text.trim().startsWith("{") ? { key: JSON.parse(text), format: "jwk" } : text),
        ),
      );
    } catch (err) {
      throw new VerifyFailed(
        `--issuer-key ${spec}: not an EC public key (P-256, P-384): ${(err as Error).message}`,
      );
    }
  }
  return out;
}

/** A record (.json) as the service served it. */
function readRecord(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readInput(file, "the record").toString("utf8")) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof VerifyFailed) throw err;
    throw new VerifyFailed(`${file} is not JSON: ${(err as Error).message}`);
  }
}

async function verifyRecordFile(file: string, v: Options, trust: TrustRoots): Promise<VerificationVerdict> {
  if (!v.receipt) throw new UsageError("--receipt <file> is required to verify a record");
  const record = readRecord(file);
  const receipt = new Uint8Array(readInput(v.receipt, "the receipt"));
  return recordReceiptVerdict(trust, await serviceKeys(trust, v.url), record, receipt);
}

/**
 * A record against its c2sp.org/tlog-proof: the log's checkpoint key pinned by --log-key (or a
 * policy), else the service's own (--url: self-consistent at best); witnesses from --witness or
 * the policy; a registered statement's issuer from --issuer-key.
 */
async function verifyRecordTlogProofFile(
  file: string,
  proofFile: string,
  v: Options,
  trust: TrustRoots,
): Promise<VerificationVerdict> {
  const record = readRecord(file);
  const proof = readInput(proofFile, "the tlog proof").toString("utf8");
  let served: string | undefined;
  if (trust.policy.logKeys.length === 0) {
    if (!v.url)
      throw new UsageError("give the log's checkpoint key: --log-key <vkey file> or --url <service>");
    const tenant = String(record.tenant_identity ?? record.origin_tenant ?? "").replace(/^tenant\//, "");
    served = new TextDecoder()
      .decode(await fetchBytes(`${v.url.replace(/\/$/, "")}/archivist/v1/merklelogs/${tenant}/tlog/key`))
      .trim();
  }
  return tlogProofVerdict(trust, record, proof, {
    ...(served ? { served } : {}),
    issuerKeys: issuerKeys(v.issuerKey, trust.serviceKeys ?? new Map()),
    ...(v.statement ? { statement: new Uint8Array(readInput(v.statement, "the statement")) } : {}),
  });
}

async function verifyStatementFile(
  file: string,
  v: Options,
  trust: TrustRoots,
): Promise<VerificationVerdict> {
  const statement = new Uint8Array(readInput(file, "the statement"));
  // Issuer keys alone check the statement's signature; a receipt also needs the service's keys.
  if (!trust.serviceKeys && !v.url && (!v.issuerKey?.length || v.receipt))
    throw new UsageError(`${KEYS_HINT}; an issuer the service does not publish: --issuer-key kid=<file>`);
  const service = trust.serviceKeys || v.url ? await serviceKeys(trust, v.url) : serviceKeysFor(trust);
  const receipts = v.receipt ? [new Uint8Array(readInput(v.receipt, "the receipt"))] : [];
  const payload = v.payload ? new Uint8Array(readInput(v.payload, "the payload")) : undefined;
  return statementVerdict(trust, service, statement, {
    issuerKeys: issuerKeys(v.issuerKey, new Map()),
    receipts,
    ...(payload ? { payload, payloadName: v.payload } : {}),
  });
}

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
async function verifyLog(log: string, v: Options, trust: TrustRoots): Promise<VerificationVerdict> {
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
        return { ok: false, reason: `seal ${state.mmrSize} is not signed by the keys checked with` };
      const paths = before ? proofs.get(`${before.mmrSize}-${state.mmrSize}`) : undefined;
      if (
        before &&
        !(paths && verifyMmrConsistency(before.mmrSize, state.mmrSize, before.peaks, state.peaks, paths))
      )
        return { ok: false, reason: `seal ${state.mmrSize} is not consistent with seal ${before.mmrSize}` };
      before = state;
    }
    return {
      ok: true,
      proven: `log tenant/${tenant}: ${seals.length} seals, each signed and consistent with the one before (size ${before?.mmrSize ?? 0})${published.proven}${chain.proven}`,
    };
  });
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** The offline verifier's declaration: a statement, a record with its receipt, or a whole log. */
export function declareVerify(exit: Exit): Cli {
  return trustOptions(
    new Cli("verify")
      .description(
        "Verify without trusting the service: a signed statement (.cose), a record (.json) with its receipt, or every seal of a log. Trust comes from your --keys, --log-key, --witness or --policy; without them the verdict is at best self-consistent.",
      )
      .argument("[file]", "a statement (.cose, e.g. GET …/statement?transparent=true) or a record (.json)")
      .option("--receipt <file>", "the record's or statement's COSE receipt")
      .option("--payload <file>", "the statement's payload (its SHA-256 must match)")
      .option("--url <service>", "the service: its published keys (not pinned), and the log with --log")
      .option(
        "--issuer-key <kid=file>",
        "a statement issuer's public key, PEM or JWK (repeatable)",
        collect,
        [],
      )
      .option(
        "--log <tenant/uuid>",
        "replay every seal of this tenancy's log and follow its chain of period roots (with --url)",
      )
      .option(
        "--checkpoint <file>",
        "with --log: a checkpoint the log published (a witness's copy); the service's log must extend it, or it is not the published log (repeatable)",
        collect,
        [],
      )
      .option(
        "--mirror <dir|url>",
        "check a record (.json) against a log mirror (archivist mirror) or a log's tiles",
      )
      .option(
        "--tlog-proof <file>",
        "check a record (.json) against its c2sp.org/tlog-proof@v1 (archivist export --tlog-proof)",
      )
      .option(
        "--statement <file>",
        "the registered statement (.cose) a record stands for, when its tlog proof does not carry it",
      )
      .option("--json", "the verdict object as JSON"),
    "the service's COSE key set (GET /.well-known/scitt-keys), pinned",
  )
    .addHelpText(
      "after",
      `
${EXIT_HELP}

Examples:
  archivist verify record.json --receipt receipt.cose --keys scitt-keys.cbor
  archivist verify statement.cose --keys scitt-keys.cbor
  archivist verify --log tenant/<uuid> --url http://127.0.0.1:8080 --keys scitt-keys.cbor
  archivist verify --log tenant/<uuid> --url http://127.0.0.1:8080 --checkpoint witnessed.txt --log-key log.vkey --witness "<vkey>"
  archivist verify record.json --mirror ./mirror --log-key log.vkey --witness "<vkey>"
  archivist verify record.json --tlog-proof r.tlog-proof --log-key log.vkey`,
    )
    .action(async (file: string | undefined, values: Options, cli: Cli) => {
      let verdict: VerificationVerdict;
      try {
        const trust = trustRoots(values);
        if (values.log) verdict = await verifyLog(values.log, values, trust);
        else if (!file)
          throw new UsageError(
            `usage: archivist verify <statement.cose | record.json> [--receipt r.cose] [--payload file] [--keys k | --url u]; see ${cli.name()} --help`,
          );
        else if (values.tlogProof)
          verdict = await verifyRecordTlogProofFile(file, values.tlogProof, values, trust);
        else if (file.endsWith(".json") && values.mirror)
          verdict = await verifyRecordInMirror(file, values.mirror, trust, {
            issuerKeys: issuerKeys(values.issuerKey, trust.serviceKeys ?? new Map()),
            ...(values.statement
              ? { statement: new Uint8Array(readInput(values.statement, "the statement")) }
              : {}),
          });
        else if (file.endsWith(".json")) verdict = await verifyRecordFile(file, values, trust);
        else verdict = await verifyStatementFile(file, values, trust);
      } catch (err) {
        // What the command line lacks is not evidence that cannot be judged: exit 64, not a verdict.
        if (err instanceof UsageError) throw err;
        verdict = cannotEvaluate(err instanceof Error ? err.message : String(err));
      }
      process.stdout.write(
        values.json ? `${JSON.stringify(verdict, null, 2)}\n` : `${verdictText(verdict).join("\n")}\n`,
      );
      exit(verdict.exit_code);
    });
}

export const verifyCommand = declared(
  "verify offline: a statement (.cose), a record (.json) with --receipt, or --log tenant/<uuid> --url <service>",
  declareVerify,
);
