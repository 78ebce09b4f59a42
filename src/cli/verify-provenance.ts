import { readFileSync } from "node:fs";
import { Command as Cli } from "commander";
import { CodedError } from "../formats/coded-error.js";
import { recordAttributes } from "../formats/lifecycle/vocabulary.js";
import { recordReceiptVerdict, serviceKeysFor, statementVerdict } from "../lookup/keyed-verdict.js";
import type { VerificationVerdict } from "../verify/index.js";
import { analysisDerivation, cannotEvaluate, checkDerivation, judge } from "../verify/index.js";
import type { Exit } from "./command.js";
import { type TrustFlags, TrustRootError, trustOptions, trustRoots, verdictText } from "./trust-roots.js";
import { EXIT_HELP } from "./verdict-help.js";

interface Flags extends TrustFlags {
  analysis?: string;
  record?: string;
  receipt?: string;
  statement?: string;
  json?: boolean;
}

class Unreadable extends CodedError<"VERIFY_FAILED"> {
  readonly code = "VERIFY_FAILED";
}

function readJson(file: string, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new Unreadable(`cannot read ${what} ${file}: ${(err as { code?: string }).code ?? String(err)}`);
  }
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("not an object");
    return v as Record<string, unknown>;
  } catch {
    throw new Unreadable(`${what} ${file} is not a JSON object`);
  }
}

/**
 * The analysis's derivation against the registered one: first the record's receipt (the record is
 * in the log, under your roots), then the derivation recomputed from the vCon against the record.
 */
function provenanceVerdict(vconFile: string, v: Flags): VerificationVerdict {
  const index = Number(v.analysis ?? "0");
  if (!Number.isSafeInteger(index) || index < 0)
    throw new Unreadable("--analysis takes an analysis index (0, 1, …)");
  const vcon = readJson(vconFile, "the vCon");
  if (v.statement) return statementProvenance(vcon, index, v.statement, v);
  if (!v.record || !v.receipt)
    throw new Unreadable(
      "give --record <record.json> and --receipt <receipt.cose>, or --statement <statement.cose>",
    );
  const record = readJson(v.record, "the record");
  let receipt: Uint8Array;
  try {
    receipt = new Uint8Array(readFileSync(v.receipt));
  } catch (err) {
    throw new Unreadable(
      `cannot read the receipt ${v.receipt}: ${(err as { code?: string }).code ?? String(err)}`,
    );
  }
  const trust = trustRoots(v);
  const keys = serviceKeysFor(trust);
  if (keys.keys.size === 0)
    return cannotEvaluate(
      "give the service's keys (--keys, or service-key lines in --policy): this check is offline",
    );
  const inLog = recordReceiptVerdict(trust, keys, record, receipt);
  if (inLog.code === "tampered" || inLog.code === "cannot-evaluate") return inLog;
  const d = checkDerivation(vcon, index, recordAttributes(record));
  return judge({
    tampered: d.ok ? [] : [d.reason],
    policy: inLog.code === "policy-failed" ? inLog.problems : [],
    pinned: inLog.code === "verified" || inLog.code === "policy-failed",
    level: "pinned",
    roots: trust.described,
    fingerprints: inLog.trust.fingerprints,
    notChecked: [
      "the model's output itself: the derivation proves which call was registered for this analysis, not that the model produced it",
    ],
    unsigned: inLog.unsigned,
    proven: d.ok
      ? `analysis ${index} of vcon://${d.derivation.vcon} is the one registered by ${String(record.identity)}: model ${d.derivation.model}${d.derivation.provider ? ` (${d.derivation.provider})` : ""}, ${d.derivation.inputs.length} input(s), output sha256 ${d.derivation.output_sha256.slice(0, 16)}…`
      : "",
  });
}

/**
 * The analysis's derivation against a transparent statement (the provenance record's, from
 * `GET …/events/{id}/statement?transparent=true`): its signature and receipts, and its payload
 * the hash of the derivation recomputed from the vCon.
 */
function statementProvenance(vcon: Record<string, unknown>, index: number, file: string, v: Flags) {
  const d = analysisDerivation(vcon, index);
  if (!d.ok) return cannotEvaluate(d.reason);
  let statement: Uint8Array;
  try {
    statement = new Uint8Array(readFileSync(file));
  } catch (err) {
    throw new Unreadable(
      `cannot read the statement ${file}: ${(err as { code?: string }).code ?? String(err)}`,
    );
  }
  const trust = trustRoots(v);
  return statementVerdict(trust, serviceKeysFor(trust), statement, {
    payload: d.preimage,
    payloadName: `(the derivation of analysis ${index}, recomputed from the vCon)`,
  });
}

/** `archivist verify provenance <vcon.json> --analysis <i> --record <record.json> --receipt <r.cose> --keys <keys.cbor>`. */
export function declareVerifyProvenance(exit: Exit): Cli {
  return trustOptions(
    new Cli("provenance")
      .description(
        "Check that an analysis in a vCon is the one whose derivation (draft-howe-vcon-provenance: model, provider, parameters, prompt hash, inputs, output hash) was registered: the registration record's receipt, then the derivation recomputed from the vCon. Offline.",
      )
      .argument("<vcon>", "the vCon file (JSON)")
      .option("--analysis <index>", "the analysis to check (default 0)")
      .option(
        "--record <file>",
        "the provenance record as the API returned it (its payload is the derivation's hash)",
      )
      .option("--receipt <file>", "the record's COSE receipt")
      .option(
        "--statement <file>",
        "instead of --record and --receipt: the record's transparent statement (GET …/events/{id}/statement?transparent=true)",
      )
      .option("--json", "the verdict object as JSON"),
  )
    .addHelpText("after", `\n${EXIT_HELP}`)
    .action((file: string, v: Flags) => {
      let verdict: VerificationVerdict;
      try {
        verdict = provenanceVerdict(file, v);
      } catch (err) {
        if (!(err instanceof Unreadable || err instanceof TrustRootError)) throw err;
        verdict = cannotEvaluate(err.message);
      }
      process.stdout.write(
        v.json ? `${JSON.stringify(verdict, null, 2)}\n` : `${verdictText(verdict).join("\n")}\n`,
      );
      exit(verdict.exit_code);
    });
}
