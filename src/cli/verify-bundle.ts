import { readFileSync } from "node:fs";
import { Command as Cli } from "commander";
import { nodePublicKeyFromJwk } from "../core/node/crypto.js";
import {
  BundleError,
  type BundleReport,
  bundleConsentReport,
  type ConsentReport,
  cannotEvaluate,
  consentReportText,
  keysFromKeySet,
  parseBundle,
  pinnedServiceKeys,
  verifyBundle,
} from "../verify/index.js";
import type { Exit } from "./command.js";
import { type TrustFlags, TrustRootError, trustOptions, trustRoots, verdictText } from "./trust-roots.js";
import { EXIT_HELP } from "./verdict-help.js";

/** Human-readable lines of a bundle report: the logs, each record oldest first, then the verdict. */
function bundleText(r: BundleReport): string {
  const lines = [
    `evidence of ${r.subject} issued by ${r.service || "(no valid receipt)"}, exported ${r.created_at} (unsigned)`,
  ];
  for (const l of r.logs) {
    const cp = l.checkpoint
      ? `; checkpoint of ${l.checkpoint.size} entries${l.checkpoint.witnessed ? `, witnessed by ${l.checkpoint.cosigners.join(", ")}` : `, ${l.checkpoint.cosignature_lines} cosignature line(s) not checked against witnesses you trust`}${l.checkpoint.pinned ? ", log key pinned" : ""}`
      : "";
    lines.push(
      `  log ${l.log} (${l.profile}): ${l.ok ? "OK" : "FAILED"} ${l.detail}${l.ok ? `, latest seal signed at ${l.latest_time}` : ""}${cp}`,
    );
  }
  for (const [i, rec] of r.records.entries()) {
    const receipts = rec.receipts.length
      ? rec.receipts.map((x) => `${x.ok ? "receipt OK" : "receipt FAILED"}: ${x.detail}`).join("; ")
      : "no receipt (not sealed when exported)";
    lines.push(
      `  ${i + 1}. ${rec.identity} (trust: ${rec.trust}; claimed status ${rec.claimed_confirmation_status || "none"}, unsigned) ${receipts}`,
    );
  }
  lines.push(`  completeness: ${r.completeness.detail}`, ...verdictText(r));
  return `${lines.join("\n")}\n`;
}

/** A deadline in hours as an option gives it: a positive number, 0 for none, absent for the default. */
function hoursOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new BundleError(`${name} takes a number of hours, got "${value}"`);
  return n === 0 ? undefined : n;
}

type BundleFlags = TrustFlags & {
  json?: boolean;
  report?: boolean;
  regulatorHours?: string;
  subjectHours?: string;
};

/** The bundle file's text; a file that cannot be read is a bundle that cannot be judged. */
function readBundleFile(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new BundleError(`cannot read the bundle ${file}: ${code === "ENOENT" ? "no such file" : code}`);
  }
}

/** The consent report of a verified bundle, its custody proofs judged under the caller's pinned keys. */
function consentOf(
  bundle: ReturnType<typeof parseBundle>,
  verified: BundleReport,
  roots: ReturnType<typeof trustRoots>,
  v: BundleFlags,
): ConsentReport {
  const evidence = keysFromKeySet(
    new Uint8Array(Buffer.from(bundle.keys.cose_key_set, "base64")),
    nodePublicKeyFromJwk,
  );
  return bundleConsentReport(
    bundle,
    verified,
    { pinned: pinnedServiceKeys(roots, evidence), evidence, makeKey: nodePublicKeyFromJwk },
    {
      breachDeadlines: {
        regulatorHours:
          v.regulatorHours === undefined ? 72 : hoursOption(v.regulatorHours, "--regulator-hours"),
        subjectHours: hoursOption(v.subjectHours, "--subject-hours"),
      },
    },
  );
}

/** `archivist verify bundle <file> [trust roots] [--json]`: offline, with nothing but the file and the caller's roots. */
export function declareVerifyBundle(exit: Exit): Cli {
  return trustOptions(
    new Cli("bundle")
      .description(
        "Verify an evidence bundle (from `archivist export`, the API or the console) offline: no service is contacted. Trust comes from your --keys, --log-key, --witness or --policy, never from the bundle.",
      )
      .argument("<file>", "the bundle (JSON)")
      .option("--json", "the verdict object as JSON")
      .option(
        "--report",
        "also the consent and processing report of the vCon, made of the records that verified (JSON: consent_report)",
      )
      .option(
        "--regulator-hours <hours>",
        "with --report: hours from a breach's detection to notify the regulator (default 72, GDPR Art. 33; 0: no deadline)",
      )
      .option(
        "--subject-hours <hours>",
        "with --report: hours from a breach's detection to notify the data subjects (default: no deadline)",
      ),
  )
    .addHelpText(
      "after",
      `\nThe report (--report) lists, per purpose, its grants, reviews and revocations, every processing
event, and flags as a violation each one after a revocation or without a grant. It reads only the
records whose receipts verified; the exit status stays the bundle's verdict. Each breach the records
tell of (by breach_id) is shown with its steps and its notification deadlines, judged now.
${EXIT_HELP}`,
    )
    .action((file: string, v: BundleFlags) => {
      let report: BundleReport | ReturnType<typeof cannotEvaluate>;
      let consent: ConsentReport | undefined;
      try {
        const bundle = parseBundle(readBundleFile(file));
        const roots = trustRoots(v);
        const verified = verifyBundle(bundle, roots, new Date(), nodePublicKeyFromJwk);
        if (v.report) consent = consentOf(bundle, verified, roots, v);
        report = verified;
      } catch (err) {
        if (!(err instanceof BundleError || err instanceof TrustRootError)) throw err;
        report = cannotEvaluate(err.message);
      }
      const consentText = consent ? `${consentReportText(consent).join("\n")}\n` : "";
      process.stdout.write(
        v.json
          ? `${JSON.stringify(consent ? { ...report, consent_report: consent } : report, null, 2)}\n`
          : "records" in report
            ? `${bundleText(report)}${consentText}`
            : `${report.summary}\n`,
      );
      exit(report.exit_code);
    });
}
