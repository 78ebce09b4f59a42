import { sameHash } from "../formats/rfc9162/hash.js";
import { tilePath } from "../formats/tlog/tile-path.js";
import { rootFromTiles } from "../formats/tlog/tiles.js";
import { LookupError, type PublicApi } from "../lookup/public-api.js";
import type { TrustRoots, VerificationVerdict } from "../verify/index.js";
import {
  checkpointStanding,
  judge,
  judgeCheckpoint,
  logKeyFingerprint,
  pinsSomething,
} from "../verify/index.js";

/** What the page reports about a tenancy's log: the shared verdict, and where the log stands. */
export interface LogReport extends VerificationVerdict {
  origin: string;
  size: number;
  cosigners: string[];
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

/**
 * Checks a tenancy's C2SP log as an outside verifier: the checkpoint under the key the service
 * serves (self-consistency) and under the caller's roots (a pinned log key, a witness quorum),
 * and the root recomputed from the tiles.
 */
export async function checkLog(api: PublicApi, tenant: string, trust: TrustRoots): Promise<LogReport> {
  const prefix = `/archivist/v1/merklelogs/${tenant}/tlog`;
  const read = async (name: string) => {
    const { status, bytes } = await api.get(`${prefix}/${name}`);
    if (status !== 200) throw new LookupError(`GET ${prefix}/${name} answered ${status}`);
    return bytes;
  };
  const served = text(await read("key")).trim();
  const j = judgeCheckpoint(text(await read("checkpoint")), served, trust.policy);
  const tampered: string[] = [];
  let policy: string[] = [];
  let notChecked: string[] = [];
  let origin = "";
  let size = 0;
  if (!j.ok) tampered.push(j.reason);
  else {
    ({ origin, size } = j.checkpoint);
    if (!sameHash(await rootFromTiles(size, (ref) => read(tilePath(ref))), j.checkpoint.root))
      tampered.push("the tiles do not recompute the checkpoint's root");
    ({ policy, notChecked } = checkpointStanding(j, trust, new Date()));
  }
  const cosigners = j.ok ? j.cosigners : [];
  return {
    ...judge({
      tampered,
      policy,
      pinned: pinsSomething(trust),
      level: j.ok && j.witnessed ? "witnessed" : "pinned",
      roots: trust.described,
      fingerprints: [
        logKeyFingerprint(
          served,
          trust.policy.logKeys.some((k) => k.trim() === served),
        ),
      ],
      notChecked,
      unsigned: [],
      proven: `${origin} at ${size} entries, signed by the log's key, root recomputed from its tiles${cosigners.length ? `, cosigned by ${cosigners.join(", ")}` : ""}`,
    }),
    origin,
    size,
    cosigners,
  };
}
