import { rootFromTiles, sameHash, tilePath, verifyCheckpoint } from "../verify/index.js";
import { LookupError, type PublicApi } from "./public-api.js";

/** What the page and the CLI report about a tenancy's log. */
export interface LogReport {
  ok: boolean;
  origin: string;
  size: number;
  cosigners: string[];
  verdict: string;
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

/**
 * Checks a tenancy's C2SP log as an outside verifier: the checkpoint against the published log
 * key, cosigned by `quorum` of the witnesses whose vkeys the verifier trusts, and the root
 * recomputed from the tiles.
 */
export async function checkLog(
  api: PublicApi,
  tenant: string,
  witnessVkeys: string[],
  quorum: number,
): Promise<LogReport> {
  const prefix = `/archivist/v1/merklelogs/${tenant}/tlog`;
  const read = async (name: string) => {
    const { status, bytes } = await api.get(`${prefix}/${name}`);
    if (status !== 200) throw new LookupError(`GET ${prefix}/${name} answered ${status}`);
    return bytes;
  };
  const logVkey = text(await read("key")).trim();
  const cp = verifyCheckpoint(text(await read("checkpoint")), { logVkey, witnessVkeys, quorum });
  if (!cp.ok) return { ok: false, origin: "", size: 0, cosigners: [], verdict: `FAILED: ${cp.reason}` };
  const { origin, size, root } = cp.checkpoint;
  const computed = await rootFromTiles(size, (ref) => read(tilePath(ref)));
  if (!sameHash(computed, root))
    return {
      ok: false,
      origin,
      size,
      cosigners: cp.cosigners,
      verdict: "FAILED: the tiles do not recompute the root",
    };
  const witnessed = cp.cosigners.length
    ? `, cosigned by ${cp.cosigners.join(", ")}`
    : ", no witness cosignature checked";
  return {
    ok: true,
    origin,
    size,
    cosigners: cp.cosigners,
    verdict: `VERIFIED: ${origin} at ${size} entries, signed by the log's key, root recomputed from its tiles${witnessed}`,
  };
}
