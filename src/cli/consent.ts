import { Command as Cli } from "commander";
import { CodedError } from "../formats/coded-error.js";
import { consentOf, lifecycleOrder } from "../formats/lifecycle/consent.js";
import type { ConsentAnswer } from "../lookup/evidence/consent-build.js";
import { recordReceiptVerdict, serviceKeysFor } from "../lookup/keyed-verdict.js";
import { LookupError } from "../lookup/public-api.js";
import { vconUuidOf } from "../lookup/vcon.js";
import type { VerificationVerdict } from "../verify/index.js";
import { judge, pinsSomething } from "../verify/index.js";
import { type CredentialFlags, callerApi } from "./caller-api.js";
import type { Exit } from "./command.js";
import { declared } from "./declare.js";
import { type TrustFlags, TrustRootError, trustOptions, trustRoots, verdictText } from "./trust-roots.js";
import { EXIT_HELP } from "./verdict-help.js";

interface Options extends TrustFlags, CredentialFlags {
  url?: string;
  purpose?: string;
  json?: boolean;
}

class ConsentFailed extends CodedError<"CONSENT_LOOKUP_FAILED"> {
  readonly code = "CONSENT_LOOKUP_FAILED";
}

const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

function bytes(b64: string): Uint8Array {
  return new Uint8Array(Buffer.from(b64, "base64"));
}

/**
 * The consent answer judged as evidence: every consent record's receipt checked against the
 * caller's roots (the service's served keys when none are pinned: self-consistent at best). A
 * record not yet sealed has no proof yet: the answer cannot be verified until it has.
 */
function consentVerdict(
  answer: ConsentAnswer,
  v: TrustFlags,
  served: Parameters<typeof serviceKeysFor>[1],
): { verdict: VerificationVerdict; lines: string[] } {
  const trust = trustRoots(v);
  const keys = serviceKeysFor(trust, served);
  const tampered: string[] = [];
  const policy: string[] = [];
  const unsealed: string[] = [];
  const lines: string[] = [];
  const checked = new Map<string, string>();
  for (const r of answer.records) {
    const identity = String(r.record.identity ?? "");
    if (r.receipt === null) {
      unsealed.push(identity);
      checked.set(identity, "not sealed yet: no receipt");
      continue;
    }
    const verdict = recordReceiptVerdict(trust, keys, r.record, bytes(r.receipt));
    if (verdict.code === "tampered") tampered.push(`${identity}: ${verdict.problems[0] ?? verdict.summary}`);
    else if (verdict.code === "policy-failed")
      policy.push(...verdict.problems.map((p) => `${identity}: ${p}`));
    checked.set(identity, verdict.code === "tampered" ? "receipt does NOT verify" : "receipt verifies");
  }
  // The state is derived here, from the records listed, never taken from the answer: a proxy
  // (or a service) that rewrote only `consents[].state` would otherwise be believed. Records whose
  // receipts did not verify decide nothing; one not sealed yet counts, and keeps the verdict open.
  const holder = String(answer.holder ?? "");
  const usable = answer.records.filter(
    (r) => checked.get(String(r.record.identity ?? "")) !== "receipt does NOT verify",
  );
  const ordered = lifecycleOrder(usable.map((r) => r.record));
  for (const c of answer.consents) {
    const derived = consentOf(ordered, c.purpose, ordered.length, holder);
    if (derived.state !== c.state || (derived.decided_by ?? "") !== (c.decided_by ?? ""))
      tampered.push(
        `purpose ${c.purpose}: the service says ${c.state}${c.decided_by ? ` (by ${c.decided_by})` : ""}, its records say ${derived.state}${derived.decided_by ? ` (by ${derived.decided_by})` : ""}`,
      );
    lines.push(
      `  purpose ${c.purpose}: ${derived.state.replace("_", " ")}${derived.decided_by ? `, decided by ${derived.decided_by}` : ""} (derived here from the records of ${holder || "no tenancy named"})`,
    );
    for (const r of derived.records)
      lines.push(`    ${r.role} ${r.identity} (${checked.get(r.identity) ?? "?"})`);
  }
  for (const f of answer.foreign ?? [])
    lines.push(`  ${f.role} ${f.identity} of another tenancy (${f.tenant}): decides nothing here`);
  const verdict = judge({
    tampered,
    policy,
    cannotEvaluate: unsealed.map((u) => `${u}: not sealed yet, so not proven; ask again once it is`),
    pinned: pinsSomething(trust),
    level: "pinned",
    roots: trust.described,
    fingerprints: keys.fingerprints,
    notChecked: [
      "completeness: the answer proves the consent records it holds are in the log; nothing proves the log holds no later one you may not read",
    ],
    unsigned: [
      `holder: the tenancy whose records decide (${holder || "none named"}), as the service names it`,
    ],
    proven: `${answer.records.length} consent record(s) of ${answer.vcon}, each in the log`,
  });
  return { verdict, lines };
}

async function runConsent(target: string, v: Options) {
  if (!v.url) throw new ConsentFailed("--url <service> is required");
  const uuid = vconUuidOf(target);
  if (!uuid) throw new ConsentFailed(`consent takes vcon://<uuid>, got "${target}"`);
  const base = v.url.replace(/\/$/, "");
  const api = await callerApi(base, v, MAX_ANSWER_BYTES, (m) => new ConsentFailed(m));
  const query = v.purpose ? `?purpose=${encodeURIComponent(v.purpose)}` : "";
  let answer: ConsentAnswer;
  let served: Awaited<ReturnType<typeof api.fetchedKeys>> | undefined;
  try {
    answer = await api.json<ConsentAnswer>(`/archivist/v1/consent/vcons/${uuid}${query}`);
    served = v.keys ? undefined : await api.fetchedKeys();
  } catch (err) {
    if (err instanceof LookupError) throw new ConsentFailed(`the consent of vcon://${uuid}: ${err.message}`);
    throw err;
  }
  return { answer, ...consentVerdict(answer, v, served) };
}

export const consentCommand = declared((exit: Exit) =>
  trustOptions(
    new Cli("consent")
      .description(
        "Ask the service for a vCon's consent, derived from the records your credentials may read (granted, revoked or never asked, per purpose), and check each consent record's receipt with the keys you pin.",
      )
      .argument("<vcon>", "vcon://<uuid>")
      .option("--url <service>", "the service")
      .option("--purpose <purpose>", "one purpose (default: every purpose the records name)")
      .option("--json", "print the answer and its verdict as JSON")
      .option("--token <jwt>", "a bearer token (or ARCHIVIST_TOKEN)")
      .option("--client-id <id>", "client credentials (or ARCHIVIST_CLIENT_ID)")
      .option("--client-secret <secret>", "client credentials (or ARCHIVIST_CLIENT_SECRET)"),
  )
    .addHelpText(
      "after",
      `
The state is derived from the records (docs/vcon-lifecycle.md): the last grant or revocation for
the purpose decides; a revocation naming no purpose revokes every purpose. Each consent record's
receipt is checked with your roots; the exit status is that verdict's. Could not ask: exit 4.
${EXIT_HELP}

Example:
  archivist consent vcon://<uuid> --purpose ai_training --url http://127.0.0.1:8080 --client-id … --client-secret … --keys keys.cbor`,
    )
    .action(async (target: string, v: Options) => {
      try {
        const { answer, verdict, lines } = await runConsent(target, v);
        if (v.json) process.stdout.write(`${JSON.stringify({ ...answer, verdict }, null, 2)}\n`);
        else process.stdout.write(`${[answer.vcon, ...lines, ...verdictText(verdict)].join("\n")}\n`);
        exit(verdict.exit_code);
      } catch (err) {
        process.stdout.write(`FAILED ${err instanceof Error ? err.message : String(err)}\n`);
        exit(err instanceof ConsentFailed || err instanceof TrustRootError ? 4 : 1);
      }
    }),
);
