import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type DocumentReport, verifyDocumentHash } from "../web/document.js";
import { PublicApi } from "../web/public-api.js";
import type { ReceiptCheck } from "../web/receipts.js";
import { sha256Hex } from "../web/sha256.js";
import { type VconReport, vconUuidOf, verifyVcon } from "../web/vcon.js";
import type { Command } from "./commands.js";
import { verifyCommand } from "./verify.js";

const options = { url: { type: "string" }, json: { type: "boolean" } } as const;

const receiptText = (r: ReceiptCheck) =>
  r.ok ? `receipt OK (log entry ${r.mmrIndex})` : `receipt FAILED: ${r.reason}`;
const who = (p: unknown) => {
  const o = (p ?? {}) as Record<string, unknown>;
  return String(o.display_name || o.email || o.subject || o.issuer || "(not declared)");
};

/** Human-readable lines of a document report. */
export function documentText(r: DocumentReport): string {
  const lines = [`document sha256 ${r.sha256}`];
  for (const m of r.matches) {
    const status =
      m.status === "Withdrawn"
        ? `Withdrawn at ${m.withdrawn_at}`
        : `Published${m.current ? "" : ` (superseded by version ${m.superseded_by})`}`;
    lines.push(
      `  ${m.asset}${m.title ? ` "${m.title}"` : ""} version ${m.version}: ${status}`,
      `    published ${m.published_at} by ${who(m.principal_declared)} (accepted for ${who(m.principal_accepted)}), ${m.confirmation_status}`,
      `    ${receiptText(m.receipt)}${m.withdrawal ? `; withdrawal ${receiptText(m.withdrawal.receipt)}` : ""}`,
    );
  }
  lines.push(r.verdict);
  return `${lines.join("\n")}\n`;
}

/** Human-readable lines of a vCon report: the trail oldest first. */
export function vconText(r: VconReport): string {
  const lines = [`${r.subject}`, ...r.hashes.map((h) => `  file sha256 (${h.form}) ${h.sha256}`)];
  for (const [i, s] of r.trail.entries())
    lines.push(
      `  ${i + 1}. ${s.timestamp_declared} ${s.operation} [${s.confirmation_status}] ${receiptText(s.receipt)}${s.matches.length ? `  <= this file (${s.matches.join(", ")})` : ""}`,
    );
  lines.push(r.verdict);
  return `${lines.join("\n")}\n`;
}

type Parsed = { target: string; url: string; json: boolean };

function parse(args: string[], usage: string): Parsed {
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
  const target = positionals[0];
  if (!target || !values.url) throw new Error(usage);
  return { target, url: values.url, json: values.json ?? false };
}

async function runReport<R extends { ok: boolean }>(
  args: string[],
  usage: string,
  make: (p: Parsed) => Promise<R>,
  text: (r: R) => string,
): Promise<number> {
  let json = args.includes("--json");
  try {
    const p = parse(args, usage);
    json = p.json;
    const report = await make(p);
    process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : text(report));
    return report.ok ? 0 : 1;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stdout.write(json ? `${JSON.stringify({ ok: false, error: message })}\n` : `FAILED ${message}\n`);
    return 1;
  }
}

/** `archivist verify document <file | sha256> --url <service> [--json]`. */
export const verifyDocumentCommand: Command = {
  summary: "find a document's published versions by its SHA-256 and verify their receipts",
  run: (args) =>
    runReport(
      args,
      "usage: archivist verify document <file | sha256> --url <service> [--json]",
      ({ target, url }) => {
        const hash =
          /^[0-9a-f]{64}$/i.test(target) && !existsSync(target)
            ? target
            : sha256Hex(new Uint8Array(readFileSync(target)));
        return verifyDocumentHash(new PublicApi(url), hash);
      },
      documentText,
    ),
};

/** `archivist verify vcon <file | uuid | vcon://uuid> --url <service> [--json]`. */
export const verifyVconCommand: Command = {
  summary: "list a vCon's public trail, verify each receipt, and match a vCon file to an operation",
  run: (args) =>
    runReport(
      args,
      "usage: archivist verify vcon <file | uuid | vcon://uuid> --url <service> [--json]",
      ({ target, url }) => {
        const api = new PublicApi(url);
        if (vconUuidOf(target) && !existsSync(target)) return verifyVcon(api, { uuid: target });
        return verifyVcon(api, { file: new Uint8Array(readFileSync(target)) });
      },
      vconText,
    ),
};

/** `archivist verify`: `document` and `vcon` subcommands, everything else as the offline verifier. */
export const verifyPublicCommand: Command = {
  summary: `${verifyCommand.summary}; or: verify document <file> --url u, verify vcon <file|uuid> --url u`,
  run(args) {
    if (args[0] === "document") return verifyDocumentCommand.run(args.slice(1));
    if (args[0] === "vcon") return verifyVconCommand.run(args.slice(1));
    return verifyCommand.run(args);
  },
};
