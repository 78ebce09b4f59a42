import { existsSync, readFileSync } from "node:fs";
import { Command as Cli } from "commander";
import { entryWords } from "../formats/mmr/indices.js";
import { type DocumentReport, verifyDocumentHash, versionLabel } from "../lookup/document.js";
import { lookupApi, lookupVerdict } from "../lookup/lookup-verdict.js";
import type { PublicApi } from "../lookup/public-api.js";
import type { ReceiptCheck } from "../lookup/receipts.js";
import { sha256Hex } from "../lookup/sha256.js";
import { type VconReport, vconUuidOf, verifyVcon } from "../lookup/vcon.js";
import type { VerificationVerdict } from "../verify/index.js";
import { cannotEvaluate } from "../verify/index.js";
import type { Exit } from "./command.js";
import { declared } from "./declare.js";
import { type TrustFlags, trustOptions, trustRoots, verdictText } from "./trust-roots.js";
import { UsageError } from "./usage.js";
import { EXIT_HELP } from "./verdict-help.js";
import { declareVerify } from "./verify.js";
import { declareVerifyBundle } from "./verify-bundle.js";
import { declareVerifyProvenance } from "./verify-provenance.js";

const receiptText = (r: ReceiptCheck) =>
  r.ok ? `receipt OK (${entryWords(r.mmrIndex)})` : `receipt FAILED: ${r.reason}`;
const who = (p: unknown) => {
  const o = (p ?? {}) as Record<string, unknown>;
  return String(o.display_name || o.email || o.subject || o.issuer || "(not declared)");
};

/** Human-readable lines of a document report. */
function documentText(r: DocumentReport): string[] {
  const lines = [`document sha256 ${r.sha256}`];
  for (const m of r.matches) {
    const status =
      m.status === "Withdrawn"
        ? `Withdrawn at ${m.withdrawn_at}`
        : `Published${m.current ? "" : ` (superseded by version ${m.superseded_by})`}`;
    lines.push(
      `  ${m.asset}${m.title ? ` "${m.title}"` : ""} ${versionLabel(m.version)}: ${status}`,
      `    published ${m.published_at} by ${who(m.principal_declared)} (accepted for ${who(m.principal_accepted)}), ${m.confirmation_status}`,
      `    ${receiptText(m.receipt)}${m.withdrawal ? `; withdrawal ${receiptText(m.withdrawal.receipt)}` : ""}`,
    );
  }
  return lines;
}

/** Human-readable lines of a vCon report: the trail oldest first. */
function vconText(r: VconReport): string[] {
  const lines = [`${r.subject}`, ...r.hashes.map((h) => `  file sha256 (${h.form}) ${h.sha256}`)];
  for (const [i, s] of r.trail.entries())
    lines.push(
      `  ${i + 1}. ${s.timestamp_declared} ${s.operation} [${s.confirmation_status}] ${receiptText(s.receipt)}${s.matches.length ? `  <= this file (${s.matches.join(", ")})` : ""}`,
    );
  return lines;
}

interface Flags extends TrustFlags {
  url?: string;
  json?: boolean;
}

/** Runs a look-up and prints its report with the shared verdict; the exit status is the verdict's. */
async function runReport<R extends { ok: boolean; verdict: string }>(
  target: string,
  v: Flags,
  usage: string,
  make: (target: string, api: PublicApi) => Promise<R>,
  text: (r: R) => string[],
): Promise<number> {
  const json = v.json ?? false;
  let out: string;
  let verdict: VerificationVerdict;
  if (!v.url) throw new UsageError(usage);
  try {
    const trust = trustRoots(v);
    const api = lookupApi(v.url, trust);
    const report = await make(target, api);
    verdict = await lookupVerdict(api, report, trust);
    out = json
      ? JSON.stringify({ ...report, ...verdict }, null, 2)
      : [...text(report), ...verdictText(verdict)].join("\n");
  } catch (err) {
    verdict = cannotEvaluate(err instanceof Error ? err.message : String(err));
    out = json ? JSON.stringify(verdict, null, 2) : verdict.summary;
  }
  process.stdout.write(`${out}\n`);
  return verdict.exit_code;
}

function lookupCommand(name: string, description: string, argument: string, usage: string) {
  return trustOptions(
    new Cli(name)
      .description(description)
      .argument(argument)
      .option("--url <service>", "the service whose public records to look up (no token needed)")
      .option("--json", "the verdict object, with the look-up's report, as JSON"),
  )
    .addHelpText("after", `\n${EXIT_HELP}`)
    .showHelpAfterError(usage);
}

const DOCUMENT_USAGE = "usage: archivist verify document <file | sha256> --url <service> [--json]";
const VCON_USAGE = "usage: archivist verify vcon <file | uuid | vcon://uuid> --url <service> [--json]";

function declareDocument(exit: Exit): Cli {
  return lookupCommand(
    "document",
    "Find a document's published versions by its SHA-256 and verify their receipts.",
    "<file|sha256>",
    DOCUMENT_USAGE,
  ).action(async (target: string, v: Flags) =>
    exit(
      await runReport(
        target,
        v,
        DOCUMENT_USAGE,
        (t, api) => {
          const hash =
            /^[0-9a-f]{64}$/i.test(t) && !existsSync(t) ? t : sha256Hex(new Uint8Array(readFileSync(t)));
          return verifyDocumentHash(api, hash);
        },
        documentText,
      ),
    ),
  );
}

function declareVcon(exit: Exit): Cli {
  return lookupCommand(
    "vcon",
    "List a vCon's public trail, verify each receipt, and match a vCon file to an operation.",
    "<file|uuid|vcon://uuid>",
    VCON_USAGE,
  ).action(async (target: string, v: Flags) =>
    exit(
      await runReport(
        target,
        v,
        VCON_USAGE,
        (t, api) => {
          if (vconUuidOf(t) && !existsSync(t)) return verifyVcon(api, { uuid: t });
          return verifyVcon(api, { file: new Uint8Array(readFileSync(t)) });
        },
        vconText,
      ),
    ),
  );
}

/** `archivist verify document <file | sha256> --url <service> [--json]`. */
export const verifyDocumentCommand = declared(declareDocument);

/** `archivist verify vcon <file | uuid | vcon://uuid> --url <service> [--json]`. */
export const verifyVconCommand = declared(declareVcon);

/** `archivist verify`: the offline verifier, with `document`, `vcon`, `bundle` and `provenance` as subcommands. */
export const verifyPublicCommand = declared((exit) =>
  declareVerify(exit)
    // The subcommands' own --url and --json follow their names.
    .enablePositionalOptions()
    .addCommand(declareDocument(exit))
    .addCommand(declareVcon(exit))
    .addCommand(declareVerifyBundle(exit))
    .addCommand(declareVerifyProvenance(exit)),
);
