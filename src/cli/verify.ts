import { createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { Command as Cli } from "commander";
import { BodyTooLarge, readBounded, readBoundedText } from "../client/bounded-body.js";
import { CodedError } from "../core/api/coded-error.js";
import { isUuid } from "../core/api/ids.js";
import {
  decodeSeal,
  keysFromKeySet,
  statementPayloadMatches,
  verifyMmrConsistency,
  verifyRecordReceipt,
  verifyRecordTlogProof,
  verifySeal,
  verifyStatement,
} from "../verify/index.js";
import { fetchFailure } from "../web/fetch-error.js";
import type { Exit } from "./commands.js";
import { declared } from "./declare.js";
import { verifyRecordInMirror } from "./mirror.js";

interface Options {
  receipt?: string;
  payload?: string;
  keys?: string;
  issuerKey?: string[];
  url?: string;
  log?: string;
  json?: boolean;
  mirror?: string;
  witness?: string[];
  quorum?: string;
  logKey?: string;
  tlogProof?: string;
}

class VerifyFailed extends CodedError<"VERIFY_FAILED"> {
  readonly code = "VERIFY_FAILED";
}

const KEYS_HINT =
  "give the service's public keys: --url <service> (fetches its /.well-known/scitt-keys) or --keys <scitt-keys.cbor>";

// What the verifier reads from a service: keys, seals, seal lists and proofs, all far smaller.
// A service (or whatever answers at its address) cannot make the verifier buffer more, or wait longer.
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
const ANSWER_TIMEOUT_MS = 60_000;

/** GET with the cause of a failure named (refused, unknown host, a status) rather than "fetch failed". */
async function get(url: string): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
  } catch (err) {
    throw new VerifyFailed(fetchFailure(url, err));
  }
  if (!res.ok) {
    const body = await readBoundedText(res, 64 * 1024, `GET ${url}`).catch(() => "");
    const message = /"message"\s*:\s*"([^"]*)"/.exec(body)?.[1];
    throw new VerifyFailed(`GET ${url} answered ${res.status}${message ? `: ${message}` : ""}`);
  }
  return res;
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  const res = await get(url);
  try {
    return await readBounded(res, MAX_ANSWER_BYTES, `GET ${url}`);
  } catch (err) {
    throw new VerifyFailed(err instanceof BodyTooLarge ? err.message : fetchFailure(url, err));
  }
}

const fetchJson = async (url: string): Promise<unknown> => {
  const bytes = await fetchBytes(url);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new VerifyFailed(`GET ${url} did not answer JSON`);
  }
};

function readInput(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new VerifyFailed(`cannot read ${what} ${file}: ${code === "ENOENT" ? "no such file" : code}`);
  }
}

async function serviceKeys(
  keys: string | undefined,
  url: string | undefined,
): Promise<Map<string, KeyObject>> {
  if (keys) return keysFromKeySet(new Uint8Array(readInput(keys, "the key set")));
  if (url) return keysFromKeySet(await fetchBytes(`${url.replace(/\/$/, "")}/.well-known/scitt-keys`));
  throw new VerifyFailed(KEYS_HINT);
}

/** Statement issuer keys given as `kid=<file>` (PEM or JWK), on top of the service's published keys. */
function issuerKeys(specs: string[] | undefined, published: Map<string, KeyObject>): Map<string, KeyObject> {
  const out = new Map(published);
  for (const spec of specs ?? []) {
    const eq = spec.indexOf("=");
    if (eq <= 0) throw new VerifyFailed("--issuer-key takes kid=<file> (a PEM or JWK public key)");
    const text = readInput(spec.slice(eq + 1), "the issuer key").toString("utf8");
    out.set(
      spec.slice(0, eq),
      createPublicKey(text.trim().startsWith("{") ? { key: JSON.parse(text), format: "jwk" } : text),
    );
  }
  return out;
}

async function verifyRecordFile(file: string, v: Options): Promise<string> {
  if (!v.receipt) throw new VerifyFailed("--receipt <file> is required to verify a record");
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(readInput(file, "the record").toString("utf8")) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof VerifyFailed) throw err;
    throw new VerifyFailed(`${file} is not JSON: ${(err as Error).message}`);
  }
  const verdict = verifyRecordReceipt(
    record,
    new Uint8Array(readInput(v.receipt, "the receipt")),
    await serviceKeys(v.keys, v.url),
  );
  if (!verdict.ok) throw new VerifyFailed(verdict.reason);
  const signed =
    verdict.profile === "mmr"
      ? `peak ${verdict.peak.slice(0, 16)}…`
      : `root of the RFC 9162 tree of ${verdict.treeSize} entries ${verdict.peak.slice(0, 16)}…`;
  return `OK ${String(record.identity)} is entry ${verdict.mmrIndex} of ${verdict.subject} (${verdict.profile} receipt, leaf ${verdict.leaf.slice(0, 16)}…, ${signed})`;
}

/**
 * A record against its c2sp.org/tlog-proof: the log's checkpoint key from --log-key (a vkey file)
 * or the service (--url), witnesses from --witness with --quorum (default: every --witness).
 */
async function verifyRecordTlogProofFile(file: string, proofFile: string, v: Options): Promise<string> {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(readInput(file, "the record").toString("utf8")) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof VerifyFailed) throw err;
    throw new VerifyFailed(`${file} is not JSON: ${(err as Error).message}`);
  }
  const proof = readInput(proofFile, "the tlog proof").toString("utf8");
  let logVkey: string;
  if (v.logKey) logVkey = readInput(v.logKey, "the log key").toString("utf8").trim();
  else if (v.url) {
    const tenant = String(record.tenant_identity ?? record.origin_tenant ?? "").replace(/^tenant\//, "");
    logVkey = (
      await (await get(`${v.url.replace(/\/$/, "")}/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()
    ).trim();
  } else throw new VerifyFailed("give the log's checkpoint key: --log-key <vkey file> or --url <service>");
  const witnesses = v.witness ?? [];
  const quorum = v.quorum === undefined ? witnesses.length : Number(v.quorum);
  const verdict = verifyRecordTlogProof(record, proof, { logVkey, witnessVkeys: witnesses, quorum });
  if (!verdict.ok) throw new VerifyFailed(verdict.reason);
  const witnessed = verdict.cosigners.length ? `, cosigned by ${verdict.cosigners.join(", ")}` : "";
  return `OK ${String(record.identity)} is entry ${verdict.index} of ${verdict.checkpoint.origin} at size ${verdict.checkpoint.size} (tlog proof${witnessed})`;
}

async function verifyStatementFile(file: string, v: Options): Promise<string> {
  const statement = new Uint8Array(readInput(file, "the statement"));
  // Issuer keys alone check the statement's signature; a receipt also needs the service's keys.
  if (!v.keys && !v.url && (!v.issuerKey?.length || v.receipt))
    throw new VerifyFailed(`${KEYS_HINT}; an issuer the service does not publish: --issuer-key kid=<file>`);
  const service = v.keys || v.url ? await serviceKeys(v.keys, v.url) : new Map<string, KeyObject>();
  const receipts = v.receipt ? [new Uint8Array(readInput(v.receipt, "the receipt"))] : [];
  const verdict = verifyStatement(statement, {
    issuerKeys: issuerKeys(v.issuerKey, service),
    serviceKeys: service,
    receipts,
  });
  if (!verdict.ok) throw new VerifyFailed(verdict.reason);
  if (v.payload) {
    if (!statementPayloadMatches(statement, new Uint8Array(readInput(v.payload, "the payload"))))
      throw new VerifyFailed(`payload ${v.payload} does not match the statement's hash`);
  }
  const profiles = verdict.profiles.length ? ` (${verdict.profiles.join(", ")})` : "";
  return `OK statement by ${verdict.issuer}, ${verdict.receipts} receipt(s) verified${profiles}${v.payload ? ", payload matches" : ""}`;
}

/** A log named as the API names tenancies (`tenant/<uuid>`) or by its bare uuid. */
function logTenant(log: string): string {
  const uuid = log.replace(/^tenant\//, "");
  if (!isUuid(uuid)) throw new VerifyFailed(`--log takes tenant/<uuid> or <uuid>, got "${log}"`);
  return uuid.toLowerCase();
}

/** Replays a log's seals from the API: each signed by the service and consistent with the previous one. */
async function verifyLog(log: string, v: Options): Promise<string> {
  if (!v.url) throw new VerifyFailed("--url <service> is required with --log");
  const tenant = logTenant(log);
  const base = v.url.replace(/\/$/, "");
  const keys = [...(await serviceKeys(v.keys, base)).values()];
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
  let previous: ReturnType<typeof decodeSeal> | undefined;
  for (const [i, size] of sizes.entries()) {
    const seal = await fetchBytes(`${base}/archivist/v1/merklelogs/${tenant}/seals/latest?mmr_size=${size}`);
    if (!keys.some((k) => verifySeal(seal, k)))
      throw new VerifyFailed(`seal ${size} is not signed by the service`);
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
      const paths = (proof.paths as string[][]).map((p) =>
        p.map((h) => new Uint8Array(Buffer.from(h, "hex"))),
      );
      if (!verifyMmrConsistency(previous.mmrSize, state.mmrSize, previous.peaks, state.peaks, paths))
        throw new VerifyFailed(`seal ${state.mmrSize} is not consistent with seal ${previous.mmrSize}`);
    }
    previous = state;
    if (process.stderr.isTTY) process.stderr.write(`\rchecked ${i + 1}/${sizes.length} seals`);
  }
  if (process.stderr.isTTY) process.stderr.write("\n");
  return `OK log tenant/${tenant}: ${sizes.length} seals, each signed and consistent with the one before (size ${previous?.mmrSize ?? 0})`;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** The offline verifier's declaration: a statement, a record with its receipt, or a whole log. */
export function declareVerify(exit: Exit): Cli {
  return new Cli("verify")
    .description(
      "Verify without trusting the service: a signed statement (.cose), a record (.json) with its receipt, or every seal of a log.",
    )
    .argument("[file]", "a statement (.cose, e.g. GET …/statement?transparent=true) or a record (.json)")
    .option("--receipt <file>", "the record's or statement's COSE receipt")
    .option("--payload <file>", "the statement's payload (its SHA-256 must match)")
    .option("--url <service>", "the service: its published keys, and the log with --log")
    .option("--keys <file>", "the service's key set (GET /.well-known/scitt-keys) instead of --url")
    .option(
      "--issuer-key <kid=file>",
      "a statement issuer's public key, PEM or JWK (repeatable)",
      collect,
      [],
    )
    .option("--log <tenant/uuid>", "replay every seal of this tenancy's log (with --url)")
    .option(
      "--mirror <dir|url>",
      "check a record (.json) against a log mirror (archivist mirror) or a log's tiles",
    )
    .option(
      "--witness <vkey>",
      "a witness whose cosignature counts toward --quorum (repeatable)",
      collect,
      [],
    )
    .option("--quorum <n>", "cosignatures the checkpoint needs (default: every --witness)")
    .option(
      "--log-key <file>",
      "the log's checkpoint key (vkey); by default the mirror's own, or the service's (--url) with --tlog-proof",
    )
    .option(
      "--tlog-proof <file>",
      "check a record (.json) against its c2sp.org/tlog-proof@v1 (archivist export --tlog-proof)",
    )
    .addHelpText(
      "after",
      `
Exit status: 0 only if everything verifies; 1 otherwise, with the cause on the FAILED line.

Examples:
  archivist verify record.json --receipt receipt.cose --url http://127.0.0.1:8080
  archivist verify statement.cose --url http://127.0.0.1:8080
  archivist verify --log tenant/<uuid> --url http://127.0.0.1:8080
  archivist verify record.json --mirror ./mirror --witness "<vkey>"
  archivist verify record.json --tlog-proof r.tlog-proof --url http://127.0.0.1:8080`,
    )
    .action(async (file: string | undefined, values: Options, cli: Cli) => {
      try {
        let line: string;
        if (values.log) line = await verifyLog(values.log, values);
        else if (!file)
          throw new VerifyFailed(
            `usage: archivist verify <statement.cose | record.json> [--receipt r.cose] [--payload file] [--url u | --keys k]; see ${cli.name()} --help`,
          );
        else if (values.tlogProof) line = await verifyRecordTlogProofFile(file, values.tlogProof, values);
        else if (file.endsWith(".json") && values.mirror)
          line = await verifyRecordInMirror(file, values.mirror, {
            witnesses: values.witness ?? [],
            quorum: values.quorum === undefined ? undefined : Number(values.quorum),
            logKey: values.logKey,
          });
        else if (file.endsWith(".json")) line = await verifyRecordFile(file, values);
        else line = await verifyStatementFile(file, values);
        process.stdout.write(`${line}\n`);
        exit(0);
      } catch (err) {
        process.stdout.write(`FAILED ${err instanceof Error ? err.message : String(err)}\n`);
        exit(1);
      }
    });
}

export const verifyCommand = declared(
  "verify offline: a statement (.cose), a record (.json) with --receipt, or --log tenant/<uuid> --url <service>",
  declareVerify,
);
