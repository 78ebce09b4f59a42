import { TLOG_PROOF_HEADER } from "../core/tlog/index.js";
import { parseTlogProof, verifyRecordTlogProof } from "../verify/index.js";
import { LookupError, type PublicApi } from "./public-api.js";

const HEADER_BYTES = new TextEncoder().encode(`${TLOG_PROOF_HEADER}\n`);

/** True when the bytes are a c2sp.org/tlog-proof@v1 file. */
export function looksLikeTlogProof(bytes: Uint8Array): boolean {
  return bytes.length > HEADER_BYTES.length && HEADER_BYTES.every((b, i) => bytes[i] === b);
}

/** What the page reports about a tlog-proof. */
export interface TlogProofReport {
  ok: boolean;
  identity: string;
  verdict: string;
}

/**
 * Checks a record's tlog-proof as an outside verifier: the record named by the proof's extra
 * data (as `archivist export --tlog-proof` writes it) read from the public routes, its leaf
 * recomputed here, the checkpoint checked against the log's published key.
 */
export async function checkTlogProof(api: PublicApi, text: string): Promise<TlogProofReport> {
  let identity: string;
  try {
    identity = new TextDecoder().decode(parseTlogProof(text).extra ?? new Uint8Array());
  } catch (err) {
    return { ok: false, identity: "", verdict: `FAILED: not a tlog proof: ${(err as Error).message}` };
  }
  if (!/^(assets\/[0-9a-f-]{36}\/)?events\/[0-9a-f-]{36}$/i.test(identity))
    return { ok: false, identity, verdict: "FAILED: the proof's extra data names no record of this service" };
  const path = identity.startsWith("assets/")
    ? `/archivist/v2/public${identity}`
    : `/archivist/v1/${identity}`;
  const { status, bytes } = await api.get(path);
  if (status !== 200)
    throw new LookupError(
      `GET ${path} answered ${status}: the record is not public, check it with archivist verify`,
    );
  const record = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  const tenant = String(record.tenant_identity ?? record.origin_tenant ?? "").replace(/^tenant\//, "");
  const key = await api.get(`/archivist/v1/merklelogs/${tenant}/tlog/key`);
  if (key.status !== 200) throw new LookupError(`the log's key answered ${key.status}`);
  const v = verifyRecordTlogProof(record, text, {
    logVkey: new TextDecoder().decode(key.bytes).trim(),
    witnessVkeys: [],
    quorum: 0,
  });
  if (!v.ok) return { ok: false, identity, verdict: `FAILED: ${v.reason}` };
  return {
    ok: true,
    identity,
    verdict: `VERIFIED: ${identity} is entry ${v.index} of ${v.checkpoint.origin} at size ${v.checkpoint.size}, signed by the log's key (witness cosignatures: check them with archivist verify --witness)`,
  };
}
