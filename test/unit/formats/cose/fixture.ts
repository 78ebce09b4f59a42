import { formatIdTimestamp } from "../../../../src/core/log/idtimestamp.js";
import { appendLeaves, peakHashes } from "../../../../src/core/log/mmr-append.js";
import { buildReceipt } from "../../../../src/core/log/receipt.js";
import { buildSeal } from "../../../../src/core/log/seal.js";
import type { Signer } from "../../../../src/core/log/sign1.js";
import {
  attachReceipts,
  eventToStatement,
  registeredEvent,
  StatementError,
} from "../../../../src/core/scitt/index.js";
import { CborError } from "../../../../src/formats/cbor/index.js";
import { CoseError, decodeReceipt } from "../../../../src/formats/cose/index.js";
import { includedRoot, inclusionProof } from "../../../../src/formats/mmr/index.js";
import { assetFreeEventLeafHash, assetFreeExtraBytes } from "../../../../src/formats/record/index.js";
import { fixtureJson } from "../../../helpers/fixtures.js";
import { deterministicSigner, vectorPublicKey } from "../../../helpers/vector-key.js";

interface StatementVectors {
  preimage: { sha256: string };
}
const v = fixtureJson<StatementVectors>("vectors/signed-statement-generated.json");

export const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
export const unhex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, "hex"));

const uuid = "0190b6a1-0000-7000-8000-000000000001";

/** The template-0.3.0 event the generated statement vectors were made from. */
export const vectorEvent = {
  arc_display_type: "vcon_create",
  payload: v.preimage.sha256,
  payload_hash_alg: "SHA-256",
  payload_preimage_content_type: "application/vcon+json",
  payload_location: `https://store.example/vcons/${uuid}`,
  subject: `vcon://${uuid}`,
  timestamp_declared: "2025-01-01T00:00:00Z",
  vcon_operation: "vcon_create",
  vcon_draft_version: "01",
  scitt_draft_version: "10",
};
export const statementOptions = { issuer: "https://conserver.example", kid: "test-key-1" };
export const payloadHash = unhex(v.preimage.sha256);

const tenant = "6a009b40-eb55-4159-81f0-69024f89f53c";
const idtimestamp = 0x8fa97ef269039b00n;

/**
 * A log of just `leaves` and a receipt of `leaves[at]` in it, as the service issues one for the
 * tenant's log (key id "svc", the leaf's idtimestamp in the unprotected header).
 */
export function receiptInLog(
  leaves: Uint8Array[],
  at: number,
  o: { tenant: string; idtimestamp: bigint; issuer?: string; signer?: Signer },
) {
  const mmr = appendLeaves(0, leaves, () => new Uint8Array());
  const node = (i: number) => mmr.nodes[i] as Uint8Array;
  const mmrIndex = mmr.leafIndices[at] as number;
  const path = inclusionProof(mmr.newSize, mmrIndex, node);
  const peak = includedRoot(mmrIndex, leaves[at] as Uint8Array, path);
  const receipt = buildReceipt(
    {
      kid: "svc",
      issuer: o.issuer ?? "https://archivist.example",
      subject: `tenant/${o.tenant}`,
      mmrIndex,
      path,
      peak,
      idtimestamp: formatIdTimestamp(o.idtimestamp),
    },
    o.signer ?? deterministicSigner,
  );
  return { mmr, node, mmrIndex, path, peak, receipt };
}

/**
 * Valid messages of every kind, all signed with the RFC 6979 vector key (deterministic nonces),
 * so each run fuzzes exactly the same bytes.
 */
export function buildFixture() {
  const attached = eventToStatement(vectorEvent, statementOptions, deterministicSigner);
  const detached = eventToStatement(
    vectorEvent,
    { ...statementOptions, detached: true },
    deterministicSigner,
  );
  const rfc9995 = eventToStatement(
    vectorEvent,
    { ...statementOptions, form: "rfc9995" },
    deterministicSigner,
  );
  const leaf = assetFreeEventLeafHash(registeredEvent(attached), idtimestamp, assetFreeExtraBytes(tenant));
  const leaves = Array.from({ length: 11 }, (_, i) => (i === 5 ? leaf : new Uint8Array(32).fill(i + 1)));
  const { mmr, node, mmrIndex, path, peak, receipt } = receiptInLog(leaves, 5, { tenant, idtimestamp });
  const state = {
    mmrSize: mmr.newSize,
    timestampMs: 1_700_000_000_000,
    idtimestamp,
    epoch: 1,
    peaks: peakHashes(mmr.newSize, node),
  };
  const seal = buildSeal(
    { kid: "svc", issuer: "https://archivist.example", logId: `tenant/${tenant}`, state },
    deterministicSigner,
  );
  const transparent = attachReceipts(attached, [receipt]);
  return { attached, detached, rfc9995, leaf, mmrIndex, path, peak, receipt, seal, state, transparent };
}

/** Keys that verify every fixture message (issuer and service share the vector key). */
export const fixtureKeys = {
  issuerKeys: new Map([[statementOptions.kid, vectorPublicKey]]),
  serviceKeys: new Map([["svc", vectorPublicKey]]),
};

/** True for the project's typed errors: a known class with a string `code`. */
export function isTypedError(err: unknown): boolean {
  const known = err instanceof CborError || err instanceof CoseError || err instanceof StatementError;
  return known && typeof (err as { code?: unknown }).code === "string";
}

/** Runs `f`; a thrown error that is not typed is recorded in `untyped` (with `label`) instead of escaping. */
export function typedOnly(untyped: string[], label: string, f: () => unknown): void {
  try {
    f();
  } catch (err) {
    if (!isTypedError(err)) untyped.push(`${label}: ${(err as Error)?.constructor?.name} ${String(err)}`);
  }
}

/** Seeded PRNG (mulberry32): the same seed gives the same inputs on every run. */
export function prng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** One random edit: replace, flip a bit, delete, insert, or truncate. */
export function mutate(base: Uint8Array, rand: (n: number) => number): Uint8Array {
  const b = Array.from(base);
  const i = rand(b.length);
  const kind = rand(5);
  if (kind === 0) b[i] = rand(256);
  else if (kind === 1) b[i] = (b[i] as number) ^ (1 << rand(8));
  else if (kind === 2) b.splice(i, 1);
  else if (kind === 3) b.splice(i, 0, rand(256));
  else b.length = i;
  return Uint8Array.from(b);
}

/**
 * False for a receipt whose inclusion index is outside what the MMR arithmetic handles: verifying
 * it would never return (a negative index, or one near 2^50, loops forever in heightIndex). The
 * fuzz tests step around these; hostile-input.test.ts requires the decoder to refuse them.
 */
export function receiptSafeToVerify(bytes: Uint8Array): boolean {
  let info: ReturnType<typeof decodeReceipt>;
  try {
    info = decodeReceipt(bytes);
  } catch {
    return true; // verifyReceipt decodes first and refuses it
  }
  return Number.isSafeInteger(info.mmrIndex) && info.mmrIndex >= 0 && info.mmrIndex < 2 ** 40;
}
