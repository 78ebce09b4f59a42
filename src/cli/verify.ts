import { createHash, createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { decodeSeal, decodeSign1, verifySeal } from "../core/cose/index.js";
import { verifyConsistency } from "../core/mmr/index.js";
import { verifyStatement } from "../core/scitt/index.js";
import { keysFromKeySet, verifyRecordReceipt } from "../core/verify/index.js";
import type { Command } from "./commands.js";
import { verifyRecordInMirror } from "./mirror.js";

const options = {
  receipt: { type: "string" },
  payload: { type: "string" },
  keys: { type: "string" },
  "issuer-key": { type: "string", multiple: true },
  url: { type: "string" },
  log: { type: "string" },
  json: { type: "boolean" },
  mirror: { type: "string" },
  witness: { type: "string", multiple: true },
  quorum: { type: "string" },
  "log-key": { type: "string" },
} as const;

class VerifyFailed extends Error {}

async function fetchBytes(url: string): Promise<Uint8Array> {
  const res = await fetch(url);
  if (!res.ok) throw new VerifyFailed(`GET ${url} answered ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function serviceKeys(
  keys: string | undefined,
  url: string | undefined,
): Promise<Map<string, KeyObject>> {
  if (keys) return keysFromKeySet(new Uint8Array(readFileSync(keys)));
  if (url) return keysFromKeySet(await fetchBytes(`${url.replace(/\/$/, "")}/.well-known/scitt-keys`));
  throw new VerifyFailed("give the service's public keys: --keys <scitt-keys.cbor> or --url <service>");
}

/** Statement issuer keys given as `kid=<file>` (PEM or JWK), on top of the service's published keys. */
function issuerKeys(specs: string[] | undefined, published: Map<string, KeyObject>): Map<string, KeyObject> {
  const out = new Map(published);
  for (const spec of specs ?? []) {
    const eq = spec.indexOf("=");
    if (eq <= 0) throw new VerifyFailed("--issuer-key takes kid=<file> (a PEM or JWK public key)");
    const text = readFileSync(spec.slice(eq + 1), "utf8");
    out.set(
      spec.slice(0, eq),
      createPublicKey(text.trim().startsWith("{") ? { key: JSON.parse(text), format: "jwk" } : text),
    );
  }
  return out;
}

async function verifyRecordFile(
  file: string,
  v: { receipt?: string; keys?: string; url?: string },
): Promise<string> {
  if (!v.receipt) throw new VerifyFailed("--receipt <file> is required to verify a record");
  const record = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const verdict = verifyRecordReceipt(
    record,
    new Uint8Array(readFileSync(v.receipt)),
    await serviceKeys(v.keys, v.url),
  );
  if (!verdict.ok) throw new VerifyFailed(verdict.reason);
  const signed =
    verdict.profile === "mmr"
      ? `peak ${verdict.peak.slice(0, 16)}…`
      : `root of the RFC 9162 tree of ${verdict.treeSize} entries ${verdict.peak.slice(0, 16)}…`;
  return `OK ${String(record.identity)} is entry ${verdict.mmrIndex} of ${verdict.subject} (${verdict.profile} receipt, leaf ${verdict.leaf.slice(0, 16)}…, ${signed})`;
}

async function verifyStatementFile(
  file: string,
  v: { receipt?: string; payload?: string; keys?: string; url?: string; "issuer-key"?: string[] },
): Promise<string> {
  const statement = new Uint8Array(readFileSync(file));
  const service = v.keys || v.url ? await serviceKeys(v.keys, v.url) : new Map<string, KeyObject>();
  const receipts = v.receipt ? [new Uint8Array(readFileSync(v.receipt))] : [];
  const verdict = verifyStatement(statement, {
    issuerKeys: issuerKeys(v["issuer-key"], service),
    serviceKeys: service,
    receipts,
  });
  if (!verdict.ok) throw new VerifyFailed(verdict.reason);
  if (v.payload) {
    const digest = createHash("sha256").update(readFileSync(v.payload)).digest();
    const s = decodeSign1(statement);
    if (!s.payload || Buffer.compare(Buffer.from(s.payload), digest) !== 0)
      throw new VerifyFailed(`payload ${v.payload} does not match the statement's hash`);
  }
  const profiles = verdict.profiles.length ? ` (${verdict.profiles.join(", ")})` : "";
  return `OK statement by ${verdict.issuer}, ${verdict.receipts} receipt(s) verified${profiles}${v.payload ? ", payload matches" : ""}`;
}

/** Replays a log's seals from the API: each signed by the service and consistent with the previous one. */
async function verifyLog(tenant: string, v: { url?: string; keys?: string }): Promise<string> {
  if (!v.url) throw new VerifyFailed("--url <service> is required with --log");
  const base = v.url.replace(/\/$/, "");
  const keys = [...(await serviceKeys(v.keys, base)).values()];
  const { mmr_sizes } = (await (await fetch(`${base}/archivist/v1/merklelogs/${tenant}/seals`)).json()) as {
    mmr_sizes: number[];
  };
  let previous: ReturnType<typeof decodeSeal> | undefined;
  for (const [i, size] of mmr_sizes.entries()) {
    const seal = await fetchBytes(`${base}/archivist/v1/merklelogs/${tenant}/seals/latest?mmr_size=${size}`);
    if (!keys.some((k) => verifySeal(seal, k)))
      throw new VerifyFailed(`seal ${size} is not signed by the service`);
    const state = decodeSeal(seal);
    if (previous) {
      const proof = (await (
        await fetch(
          `${base}/archivist/v1/merklelogs/${tenant}/consistency?from=${previous.mmrSize}&to=${state.mmrSize}`,
        )
      ).json()) as { paths: string[][] };
      const paths = proof.paths.map((p) => p.map((h) => new Uint8Array(Buffer.from(h, "hex"))));
      if (!verifyConsistency(previous.mmrSize, state.mmrSize, previous.peaks, state.peaks, paths))
        throw new VerifyFailed(`seal ${state.mmrSize} is not consistent with seal ${previous.mmrSize}`);
    }
    previous = state;
    if (process.stderr.isTTY) process.stderr.write(`\rchecked ${i + 1}/${mmr_sizes.length} seals`);
  }
  if (process.stderr.isTTY) process.stderr.write("\n");
  return `OK log tenant/${tenant}: ${mmr_sizes.length} seals, each signed and consistent with the one before (size ${previous?.mmrSize ?? 0})`;
}

export const verifyCommand: Command = {
  summary:
    "verify offline: a statement (.cose), a record (.json) with --receipt, or --log <tenant> --url <service>",
  async run(args) {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    try {
      const file = positionals[0];
      let line: string;
      if (values.log) line = await verifyLog(values.log, values);
      else if (!file)
        throw new VerifyFailed(
          "usage: archivist verify <statement.cose | record.json> [--receipt r.cose] [--payload file] [--keys k | --url u]" +
            " | <record.json> --mirror <dir | log url> [--witness vkey]… [--quorum n] [--log-key file]",
        );
      else if (file.endsWith(".json") && values.mirror)
        line = await verifyRecordInMirror(file, values.mirror, {
          witnesses: values.witness ?? [],
          quorum: values.quorum === undefined ? undefined : Number(values.quorum),
          logKey: values["log-key"],
        });
      else if (file.endsWith(".json")) line = await verifyRecordFile(file, values);
      else line = await verifyStatementFile(file, values);
      process.stdout.write(`${line}\n`);
      return 0;
    } catch (err) {
      process.stdout.write(`FAILED ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
  },
};
