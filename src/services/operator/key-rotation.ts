import type { Ctx } from "../../context.js";
import type { Rotation } from "../../keys/keyring.js";
import { listTenancies } from "../../store/identity/tenancies.js";
import { recordServiceEvent } from "../ledger/service-events.js";

/** The attributes of a rotation's record in a log. */
function rotationEvent(r: Rotation): Record<string, string> {
  return {
    arc_display_type: "archivist_key_rotation",
    arc_description: `the service's ${r.purpose} key ${r.old.kid} was retired and ${r.new.kid} signs from ${r.new.created_at}`,
    key_purpose: r.purpose,
    key_alg: r.new.alg,
    old_kid: r.old.kid,
    old_valid_from: r.old.created_at,
    old_valid_until: r.new.created_at,
    new_kid: r.new.kid,
    new_valid_from: r.new.created_at,
    new_public_jwk: JSON.stringify(r.new.public_jwk),
    ...(r.old.cosign_until === undefined ? {} : { old_cosigns_until: r.old.cosign_until }),
  };
}

/**
 * The purposes a rotation takes, as the keyring does (it refuses any other): named here so that
 * `archivist keys rotate` refuses a mistyped one as a usage error before it opens anything.
 */
export function isRotatablePurpose(purpose: string): boolean {
  return (
    ["seal", "token", "tlog", "tlog-ml-dsa-44"].includes(purpose) || /^issuer:[0-9a-f-]{36}$/.test(purpose)
  );
}

/**
 * `archivist keys rotate <purpose>`: a new key signs from now on, and the rotation is recorded in
 * the log of every tenancy it concerns (an issuer key's: that tenancy's). The records' names.
 */
export async function rotateKey(
  ctx: Pick<Ctx, "db" | "keys" | "log" | "writePath">,
  purpose: string,
  cosignDays: number,
): Promise<{ rotation: Rotation; recorded: string[] }> {
  const r = await ctx.keys.rotate(purpose, { cosignDays });
  const issuerOf = /^issuer:(.+)$/.exec(purpose)?.[1];
  const tenants = issuerOf ? [issuerOf] : (await listTenancies(ctx.db)).map((t) => t.id);
  const recorded: string[] = [];
  for (const t of tenants) {
    const e = await recordServiceEvent(ctx, t, rotationEvent(r));
    recorded.push(String(e.identity));
  }
  ctx.log.warn(
    { purpose, old_kid: r.old.kid, new_kid: r.new.kid, holder: r.new.holder, recorded_in: recorded },
    "key rotated",
  );
  return { rotation: r, recorded };
}
