import { createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { nodePublicKey, nodePublicKeyFromJwk } from "../core/node/crypto.js";
import { CodedError } from "../formats/coded-error.js";
import { type ServiceKeys, serviceKeysFor } from "../lookup/keyed-verdict.js";
import { LookupError, PublicApi } from "../lookup/public-api.js";
import { keysFromKeySet, type PublicKey, type TrustRoots } from "../verify/index.js";
import type { TrustFlags } from "./trust-roots.js";
import { UsageError } from "./usage.js";

// What `archivist verify` reads: its options, the files it is given and the service's answers,
// each failure to read one a VerifyFailed (the verdict cannot-evaluate). verify.ts and
// verify-log.ts judge what is read here.

export interface Options extends TrustFlags {
  receipt?: string;
  payload?: string;
  issuerKey?: string[];
  url?: string;
  log?: string;
  json?: boolean;
  mirror?: string;
  tlogProof?: string;
  statement?: string;
  checkpoint?: string[];
}

/** Input that cannot be judged (an unreadable file, a service not answering): verdict cannot-evaluate. */
export class VerifyFailed extends CodedError<"VERIFY_FAILED"> {
  readonly code = "VERIFY_FAILED";
}

export const KEYS_HINT =
  "give the service's public keys: --keys <scitt-keys.cbor> (pinned), or --url <service> (fetches its /.well-known/scitt-keys, not pinned)";

// What the verifier reads from a service: keys, seals, seal lists and proofs, all far smaller.
// A service (or whatever answers at its address) cannot make the verifier buffer more, or wait longer.
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
const ANSWER_TIMEOUT_MS = 60_000;

// The one look-up client, here reading whole URLs (its base is empty: each call names its service).
export const lookups = new PublicApi("", { maxBytes: MAX_ANSWER_BYTES, timeoutMs: ANSWER_TIMEOUT_MS });

/** A look-up that failed (refused, unknown host, a status) is input that cannot be judged. */
async function looked<T>(look: () => Promise<T>): Promise<T> {
  try {
    return await look();
  } catch (err) {
    if (err instanceof LookupError) throw new VerifyFailed(err.message);
    throw err;
  }
}

export const fetchBytes = (url: string): Promise<Uint8Array> => looked(() => lookups.bytes(url));
export const fetchJson = (url: string): Promise<unknown> => looked(() => lookups.json<unknown>(url));

export function readInput(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new VerifyFailed(`cannot read ${what} ${file}: ${code === "ENOENT" ? "no such file" : code}`);
  }
}

/**
 * The service's COSE keys to check with, and which of them the caller pinned: `--keys` are
 * pinned as given; keys fetched from `--url` are pinned only where the policy names their
 * fingerprint. Fetched keys are what the service says today, not a trust root.
 */
export async function serviceKeys(trust: TrustRoots, url: string | undefined): Promise<ServiceKeys> {
  if (trust.serviceKeys) return serviceKeysFor(trust);
  if (!url) throw new UsageError(KEYS_HINT);
  const fetched = keysFromKeySet(
    await fetchBytes(`${url.replace(/\/$/, "")}/.well-known/scitt-keys`),
    nodePublicKeyFromJwk,
  );
  return serviceKeysFor(trust, fetched);
}

/** Statement issuer keys given as `kid=<file>` (PEM or JWK), on top of the service's published keys. */
export function issuerKeys(
  specs: string[] | undefined,
  published: Map<string, PublicKey>,
): Map<string, PublicKey> {
  const out = new Map(published);
  for (const spec of specs ?? []) {
    const eq = spec.indexOf("=");
    if (eq <= 0) throw new UsageError("--issuer-key takes kid=<file> (a PEM or JWK public key)");
    const text = readInput(spec.slice(eq + 1), "the issuer key").toString("utf8");
    try {
      out.set(
        spec.slice(0, eq),
        nodePublicKey(
          createPublicKey(text.trim().startsWith("{") ? { key: JSON.parse(text), format: "jwk" } : text),
        ),
      );
    } catch (err) {
      throw new VerifyFailed(
        `--issuer-key ${spec}: not an EC public key (P-256, P-384): ${(err as Error).message}`,
      );
    }
  }
  return out;
}

/** A record (.json) as the service served it. */
export function readRecord(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readInput(file, "the record").toString("utf8")) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof VerifyFailed) throw err;
    throw new VerifyFailed(`${file} is not JSON: ${(err as Error).message}`);
  }
}
