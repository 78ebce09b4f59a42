import { existsSync, readFileSync } from "node:fs";
import { Command as Cli } from "commander";
import { type DocumentReport, verifyDocumentHash, versionLabel } from "../web/document.js";
import { PublicApi } from "../web/public-api.js";
import type { ReceiptCheck } from "../web/receipts.js";
import { sha256Hex } from "../web/sha256.js";
import { type VconReport, vconUuidOf, verifyVcon } from "../web/vcon.js";
import type { Exit } from "./commands.js";
import { declared } from "./declare.js";
import { declareVerify } from "./verify.js";
import { declareVerifyBundle } from "./verify-bundle.js";

const receiptText = (r: ReceiptCheck) =>
  r.ok ? `receipt OK (log entry ${r.mmrIndex})` : `receipt FAILED: ${r.reason}`;
const who = (p: unknown) => {
  const o = (p ?? {}) as Record<string, unknown>;
  return String(o.display_name || o.email || o.subject || o.issuer || "(not declared)");
};

/** Human-readable lines of a document report. */
function documentText(r: DocumentReport): string {
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
  lines.push(r.verdict);
  return `${lines.join("\n")}\n`;
}

/** Human-readable lines of a vCon report: the trail oldest first. */
function vconText(r: VconReport): string {
  const lines = [`${r.subject}`, ...r.hashes.map((h) => `  file sha256 (${h.form}) ${h.sha256}`)];
  for (const [i, s] of r.trail.entries())
    lines.push(
      `  ${i + 1}. ${s.timestamp_declared} ${s.operation} [${s.confirmation_status}] ${receiptText(s.receipt)}${s.matches.length ? `  <= this file (${s.matches.join(", ")})` : ""}`,
    );
  lines.push(r.verdict);
  return `${lines.join("\n")}\n`;
}

interface Flags {
  url?: string;
  json?: boolean;
}

/** Runs a report; exit 0 only when it verifies. Errors print as FAILED (or JSON) with their cause. */
async function runReport<R extends { ok: boolean }>(
  target: string,
  v: Flags,
  usage: string,
  make: (target: string, url: string) => Promise<R>,
  text: (r: R) => string,
): Promise<number> {
  const json = v.json ?? false;
  try {
    if (!v.url) throw new Error(usage);
    const report = await make(target, v.url);
    process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : text(report));
    return report.ok ? 0 : 1;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stdout.write(json ? `${JSON.stringify({ ok: false, error: message })}\n` : `FAILED ${message}\n`);
    return 1;
  }
}

function lookupCommand(name: string, description: string, argument: string, usage: string) {
  return new Cli(name)
    .description(description)
    .argument(argument)
    .option("--url <service>", "the service whose public records to look up (no token needed)")
    .option("--json", "the report as JSON")
    .addHelpText("after", "\nExit status: 0 only if a matching record is found and its receipts verify.")
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
        (t, url) => {
          const hash =
            /^[0-9a-f]{64}$/i.test(t) && !existsSync(t) ? t : sha256Hex(new Uint8Array(readFileSync(t)));
          return verifyDocumentHash(new PublicApi(url), hash);
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
        (t, url) => {
          const api = new PublicApi(url);
          if (vconUuidOf(t) && !existsSync(t)) return verifyVcon(api, { uuid: t });
          return verifyVcon(api, { file: new Uint8Array(readFileSync(t)) });
        },
        vconText,
      ),
    ),
  );
}

/** `archivist verify document <file | sha256> --url <service> [--json]`. */
export const verifyDocumentCommand = declared(
  "find a document's published versions by its SHA-256 and verify their receipts",
  declareDocument,
);

/** `archivist verify vcon <file | uuid | vcon://uuid> --url <service> [--json]`. */
export const verifyVconCommand = declared(
  "list a vCon's public trail, verify each receipt, and match a vCon file to an operation",
  declareVcon,
);

/** `archivist verify`: the offline verifier, with `document`, `vcon` and `bundle` as subcommands. */
export const verifyPublicCommand = declared(
  "verify a statement, a record, a log, an evidence bundle, a public document or a vCon",
  (exit) =>
    declareVerify(exit)
      // The subcommands' own --url and --json follow their names.
      .enablePositionalOptions()
      .addCommand(declareDocument(exit))
      .addCommand(declareVcon(exit))
      .addCommand(declareVerifyBundle(exit)),
);
