import { readFileSync } from "node:fs";
import { Command as Cli } from "commander";
import { type BundleReport, parseBundle, verifyBundle } from "../verify/index.js";
import type { Exit } from "./commands.js";

/** Human-readable lines of a bundle report: the logs, then each record oldest first. */
function bundleText(r: BundleReport): string {
  const lines = [`evidence of ${r.subject} from ${r.service}, exported ${r.created_at}`];
  for (const l of r.logs)
    lines.push(
      `  log ${l.log} (${l.profile}): ${l.ok ? "OK" : "FAILED"} ${l.detail}${l.ok ? `, latest seal ${l.latest_time}` : ""}`,
    );
  for (const [i, rec] of r.records.entries()) {
    const receipts = rec.receipts.length
      ? rec.receipts.map((x) => `${x.ok ? "receipt OK" : "receipt FAILED"}: ${x.detail}`).join("; ")
      : "no receipt (not sealed when exported)";
    lines.push(`  ${i + 1}. ${rec.identity} [${rec.confirmation_status}] ${receipts}`);
  }
  for (const u of r.unchecked) lines.push(`  not checked (unknown to this verifier): ${u}`);
  lines.push(r.verdict);
  return `${lines.join("\n")}\n`;
}

/** `archivist verify bundle <file> [--json]`: offline, with nothing but the file. */
export function declareVerifyBundle(exit: Exit): Cli {
  return new Cli("bundle")
    .description(
      "Verify an evidence bundle (from `archivist export`, the API or the console) offline: no service is contacted.",
    )
    .argument("<file>", "the bundle (JSON)")
    .option("--json", "the report as JSON")
    .addHelpText("after", "\nExit status: 0 only if every record's receipt and every seal verifies.")
    .action((file: string, v: { json?: boolean }) => {
      try {
        let text: string;
        try {
          text = readFileSync(file, "utf8");
        } catch (err) {
          const code = (err as { code?: string }).code;
          throw new Error(`cannot read the bundle ${file}: ${code === "ENOENT" ? "no such file" : code}`);
        }
        const report = verifyBundle(parseBundle(text));
        process.stdout.write(v.json ? `${JSON.stringify(report, null, 2)}\n` : bundleText(report));
        exit(report.ok ? 0 : 1);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        process.stdout.write(
          v.json ? `${JSON.stringify({ ok: false, error: message })}\n` : `FAILED ${message}\n`,
        );
        exit(1);
      }
    });
}
