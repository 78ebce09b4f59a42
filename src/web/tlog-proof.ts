import { TLOG_PROOF_HEADER } from "../formats/tlog/proof.js";
import { parseProofExtra } from "../formats/tlog/proof-extra.js";
import { LookupError, type PublicApi } from "../lookup/public-api.js";
import { parseTlogProof } from "../verify/index.js";

const HEADER_BYTES = new TextEncoder().encode(`${TLOG_PROOF_HEADER}\n`);

/** True when the bytes are a c2sp.org/tlog-proof@v1 file. */
export function looksLikeTlogProof(bytes: Uint8Array): boolean {
  return bytes.length > HEADER_BYTES.length && HEADER_BYTES.every((b, i) => bytes[i] === b);
}

/**
 * What a record's tlog-proof needs from the service, read as an outside verifier reads it: the
 * record named by the proof's extra data (as `archivist export --tlog-proof` writes it) from the
 * public routes, and the log's checkpoint key as the service serves it (a claim, not a root: the
 * verdict is self-consistent unless the caller's policy pins the log key).
 */
export async function recordOfTlogProof(
  api: PublicApi,
  text: string,
): Promise<{ identity: string; record: Record<string, unknown>; servedLogKey: string }> {
  let identity: string;
  try {
    identity = parseProofExtra(parseTlogProof(text).extra).identity;
  } catch (err) {
    throw new LookupError(`not a tlog proof: ${(err as Error).message}`);
  }
  if (!/^(assets\/[0-9a-f-]{36}\/)?events\/[0-9a-f-]{36}$/i.test(identity))
    throw new LookupError("the proof's extra data names no record of this service");
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
  return { identity, record, servedLogKey: new TextDecoder().decode(key.bytes).trim() };
}
