import { Command as Cli } from "commander";
import {
  recordReceiptVerdict,
  serviceKeysFor,
  statementVerdict,
  tlogProofVerdict,
} from "../lookup/keyed-verdict.js";
import type { TrustRoots, VerificationVerdict } from "../verify/index.js";
import { cannotEvaluate } from "../verify/index.js";
import type { Exit } from "./command.js";
import { declared } from "./declare.js";
import { verifyRecordInMirror } from "./mirror.js";
import { trustOptions, trustRoots, verdictText } from "./trust-roots.js";
import { UsageError } from "./usage.js";
import { EXIT_HELP } from "./verdict-help.js";
import {
  fetchBytes,
  issuerKeys,
  KEYS_HINT,
  type Options,
  readInput,
  readRecord,
  serviceKeys,
} from "./verify-inputs.js";
import { verifyLog } from "./verify-log.js";

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

const collect = (value: string, previous: string[]) => [...previous, value];

/** The command and its own options (trustOptions adds the trust-root options). */
function verifyCli(): Cli {
  return new Cli("verify")
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
    .option("--json", "the verdict object as JSON");
}

/** The offline verifier's declaration: a statement, a record with its receipt, or a whole log. */
export function declareVerify(exit: Exit): Cli {
  return trustOptions(verifyCli(), "the service's COSE key set (GET /.well-known/scitt-keys), pinned")
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
      const verdict = await verdictOf(file, values, cli);
      process.stdout.write(
        values.json ? `${JSON.stringify(verdict, null, 2)}\n` : `${verdictText(verdict).join("\n")}\n`,
      );
      exit(verdict.exit_code);
    });
}

/** The check the arguments ask for, run: a log, a record (by its tlog proof, mirror or receipt), or a statement. */
async function verdictOf(file: string | undefined, values: Options, cli: Cli): Promise<VerificationVerdict> {
  try {
    const trust = trustRoots(values);
    if (values.log) return await verifyLog(values.log, values, trust);
    if (!file)
      throw new UsageError(
        `usage: archivist verify <statement.cose | record.json> [--receipt r.cose] [--payload file] [--keys k | --url u]; see ${cli.name()} --help`,
      );
    if (values.tlogProof) return await verifyRecordTlogProofFile(file, values.tlogProof, values, trust);
    if (file.endsWith(".json") && values.mirror)
      return await verifyRecordInMirror(file, values.mirror, trust, {
        issuerKeys: issuerKeys(values.issuerKey, trust.serviceKeys ?? new Map()),
        ...(values.statement
          ? { statement: new Uint8Array(readInput(values.statement, "the statement")) }
          : {}),
      });
    if (file.endsWith(".json")) return await verifyRecordFile(file, values, trust);
    return await verifyStatementFile(file, values, trust);
  } catch (err) {
    // What the command line lacks is not evidence that cannot be judged: exit 64, not a verdict.
    if (err instanceof UsageError) throw err;
    return cannotEvaluate(err instanceof Error ? err.message : String(err));
  }
}

export const verifyCommand = declared(declareVerify);
