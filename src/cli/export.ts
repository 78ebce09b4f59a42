import { writeFileSync } from "node:fs";
import { Command as Cli } from "commander";
import { nodePublicKeyFromJwk } from "../core/node/crypto.js";
import { CodedError } from "../formats/coded-error.js";
import { isUuid } from "../formats/ids.js";
import { tlogProofVerdict } from "../lookup/keyed-verdict.js";
import { LookupError } from "../lookup/public-api.js";
import { vconUuidOf } from "../lookup/vcon.js";
import { parseBundle, verifyBundle } from "../verify/index.js";
import { type CredentialFlags, callerApi as credentialedApi } from "./caller-api.js";
import type { Exit } from "./command.js";
import { declared } from "./declare.js";
import { type TrustFlags, TrustRootError, trustOptions, trustRoots } from "./trust-roots.js";
import { UsageError } from "./usage.js";
import { EXIT_HELP } from "./verdict-help.js";

interface Options extends TrustFlags, CredentialFlags {
  url?: string;
  out?: string;
  tlogProof?: boolean;
}

class ExportFailed extends CodedError<"EXPORT_FAILED"> {
  readonly code = "EXPORT_FAILED";
}

/** `assets/<uuid>` (or a bare uuid) names an asset; `vcon://<uuid>` a vCon. */
function exportTarget(target: string): { kind: "assets" | "vcons"; uuid: string } {
  if (/^vcon:\/\//i.test(target)) {
    const uuid = vconUuidOf(target);
    if (uuid) return { kind: "vcons", uuid };
  }
  const uuid = target.replace(/^assets\//, "");
  if (isUuid(uuid)) return { kind: "assets", uuid: uuid.toLowerCase() };
  throw new UsageError(`export takes assets/<uuid> or vcon://<uuid>, got "${target}"`);
}

// A bundle is the largest answer read (a long trail's records, receipts and proofs); a token or
// an error is a line. What answers at --url cannot make the CLI buffer more, or wait forever.
const MAX_BUNDLE_BYTES = 256 * 1024 * 1024;
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

const callerApi = (base: string, v: Options, maxBytes: number) =>
  credentialedApi(base, v, maxBytes, (m) => new ExportFailed(m));

/** A look-up that failed is an export that could not be made (exit 4), named as the service answered. */
async function looked<T>(what: string, look: () => Promise<T>): Promise<T> {
  try {
    return await look();
  } catch (err) {
    if (err instanceof LookupError) throw new ExportFailed(`${what}: ${err.message}`);
    throw err;
  }
}

/** `assets/<uuid>/events/<uuid>` or `events/<uuid>`: a record, whose tlog-proof is asked for. */
function recordTarget(target: string): { identity: string; uuid: string } {
  const m = /^(?:assets\/([0-9a-f-]{36})\/)?events\/([0-9a-f-]{36})$/i.exec(target);
  if (!m || (m[1] && !isUuid(m[1])) || !isUuid(m[2] as string))
    throw new UsageError(
      `--tlog-proof takes a record: assets/<uuid>/events/<uuid> or events/<uuid>, got "${target}"`,
    );
  return { identity: target.toLowerCase(), uuid: (m[2] as string).toLowerCase() };
}

/**
 * Writes a record's c2sp.org/tlog-proof and checks it as it is written: against the record as
 * the credentials read it and the log's checkpoint key, both fetched from the service.
 */
async function runTlogProofExport(target: string, base: string, v: Options) {
  const { identity, uuid } = recordTarget(target);
  const api = await callerApi(base, v, MAX_RECORD_BYTES);
  const proof = new TextDecoder().decode(
    await looked(`the tlog proof of ${identity}`, () => api.bytes(`/archivist/v1/tlog-proofs/${identity}`)),
  );
  const out = v.out ?? `${uuid}.tlog-proof`;
  writeFileSync(out, proof);
  const recordPath = identity.startsWith("assets/")
    ? `/archivist/v2/${identity}`
    : `/archivist/v1/${identity}`;
  const record = await looked(`the record ${identity}`, () => api.json<Record<string, unknown>>(recordPath));
  const tenant = String(record.tenant_identity ?? record.origin_tenant ?? "").replace(/^tenant\//, "");
  // A pinned log key (--log-key or a policy's) is a trust root; the service's own is only its claim.
  const trust = trustRoots(v);
  const served =
    trust.policy.logKeys.length > 0
      ? undefined
      : new TextDecoder()
          .decode(
            await looked("the log's checkpoint key", () =>
              api.bytes(`/archivist/v1/merklelogs/${tenant}/tlog/key`),
            ),
          )
          .trim();
  const verdict = await tlogProofVerdict(trust, record, proof, served ? { served } : {});
  return { line: `wrote ${out}; ${verdict.summary}`, exit: verdict.exit_code };
}

async function runExport(target: string, v: Options): Promise<{ line: string; exit: number }> {
  if (!v.url) throw new UsageError("--url <service> is required");
  const base = v.url.replace(/\/$/, "");
  if (v.tlogProof) return runTlogProofExport(target, base, v);
  const { kind, uuid } = exportTarget(target);
  const api = await callerApi(base, v, MAX_BUNDLE_BYTES);
  const text = new TextDecoder().decode(
    await looked(`the evidence of ${target}`, () => api.bytes(`/archivist/v1/evidence/${kind}/${uuid}`)),
  );
  // Checked as it is written: one that does not verify (records not sealed yet, say) is written
  // all the same, with its verdict, and the exit status says it is not evidence yet.
  const report = verifyBundle(parseBundle(text), trustRoots(v), new Date(), nodePublicKeyFromJwk);
  const out = v.out ?? `evidence-${kind === "assets" ? "asset" : "vcon"}-${uuid}.json`;
  writeFileSync(out, text);
  return {
    line: `wrote ${out}: ${report.records.length} record(s), ${report.logs.length} log(s); ${report.summary}`,
    exit: report.exit_code,
  };
}

export const exportCommand = declared((exit: Exit) =>
  trustOptions(
    new Cli("export")
      .description(
        "Write one file holding a vCon's or an asset's whole trail: its records and their receipts, the seals, the consistency proofs tying them to the latest seal, and the service's keys. Check it anywhere with `archivist verify bundle <file>`.",
      )
      .argument(
        "<target>",
        "assets/<uuid> or vcon://<uuid>; with --tlog-proof, a record (assets/<uuid>/events/<uuid> or events/<uuid>)",
      )
      .option("--url <service>", "the service")
      .option(
        "--out <file>",
        "where to write the bundle (default: evidence-<kind>-<uuid>.json; <uuid>.tlog-proof with --tlog-proof)",
      )
      .option(
        "--tlog-proof",
        "write the record's c2sp.org/tlog-proof@v1 instead (its RFC 9162 inclusion in the log's checkpoint)",
      )
      .option("--token <jwt>", "a bearer token (or ARCHIVIST_TOKEN)")
      .option("--client-id <id>", "client credentials (or ARCHIVIST_CLIENT_ID)")
      .option("--client-secret <secret>", "client credentials (or ARCHIVIST_CLIENT_SECRET)"),
  )
    .addHelpText(
      "after",
      `
The bundle holds what the credentials may read. It is checked as it is written, with the trust
roots you give; one that does not verify is written all the same, and the exit status is its
verdict's. Could not be written at all: exit 4.
${EXIT_HELP}

Examples:
  archivist export vcon://<uuid> --url http://127.0.0.1:8080 --client-id … --client-secret … --out evidence.json
  archivist export events/<uuid> --tlog-proof --url http://127.0.0.1:8080 --token … --out r.tlog-proof
  (then: archivist verify record.json --tlog-proof r.tlog-proof --url http://127.0.0.1:8080)`,
    )
    .action(async (target: string, v: Options) => {
      try {
        const { line, exit: code } = await runExport(target, v);
        process.stdout.write(`${line}\n`);
        exit(code);
      } catch (err) {
        if (err instanceof UsageError) throw err;
        process.stdout.write(`FAILED ${err instanceof Error ? err.message : String(err)}\n`);
        exit(err instanceof ExportFailed || err instanceof TrustRootError ? 4 : 1);
      }
    }),
);
