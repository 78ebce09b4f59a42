import type { Ctx } from "../../context.js";
import { formatVkey } from "../../core/log/note-sign.js";
import { notFound } from "../../errors/api-error.js";
import { ED25519 } from "../../formats/tlog/keys.js";
import { ML_DSA_44 } from "../../formats/tlog/ml-dsa.js";
import type { KeyEntry } from "../../keys/key-directory.js";
import { listTenancies } from "../../store/identity/tenancies.js";
import { originOf, TLOG_KEY, TLOG_ML_DSA_KEY } from "../../store/ledger/tlog-checkpoints.js";
import { liveTokenKeys } from "../identity/token-keys.js";

/** The promise about retired public keys, served with them (docs/keys.md, key retention). */
const KEY_RETENTION =
  "Retired seal, statement issuer and log keys stay published for as long as the service runs (they are never withdrawn), so whatever they signed verifies; a retired token key is published until the last token it signed has expired (one hour).";

/** One published key with the time it was valid. */
interface PublishedKey {
  purpose: string;
  kid: string;
  alg: string;
  public_jwk: Record<string, unknown>;
  valid_from: string;
  /** When a newer key took over; null while current. */
  valid_until: string | null;
  /** A retired log key co-signs checkpoints until then. */
  cosigns_until?: string;
}

const published = (purpose: string, e: KeyEntry): PublishedKey => ({
  purpose,
  kid: e.kid,
  alg: e.alg,
  public_jwk: { ...e.public_jwk, kid: e.kid, alg: e.alg },
  valid_from: e.created_at,
  valid_until: e.retired_at,
  ...(e.cosign_until === undefined ? {} : { cosigns_until: e.cosign_until }),
});

/**
 * Every key the service signs with, current and retired, with when each was valid: the seal key,
 * every tenancy's statement issuer key, the log keys, and the token keys still live. What a
 * verifier needs to tell which key was valid when; the rotations themselves are records in the
 * logs (`archivist_key_rotation` events).
 */
export async function keyHistory(
  ctx: Pick<Ctx, "db" | "keys">,
): Promise<{ retention: string; keys: PublishedKey[] }> {
  const purposes: Array<[string, "ES256" | "Ed25519" | "ML-DSA-44"]> = [
    ["seal", "ES256"],
    [TLOG_KEY, "Ed25519"],
    [TLOG_ML_DSA_KEY, "ML-DSA-44"],
    ...(await listTenancies(ctx.db)).map((t): [string, "ES256"] => [`issuer:${t.id}`, "ES256"]),
  ];
  const keys: PublishedKey[] = [];
  for (const [purpose, alg] of purposes)
    for (const e of await ctx.keys.history(purpose, alg)) keys.push(published(purpose, e));
  for (const e of await liveTokenKeys(ctx.keys)) keys.push(published("token", e));
  return { retention: KEY_RETENTION, keys };
}

/** A log key's vkey, named by the log's origin. */
function vkeyOf(origin: string, e: KeyEntry): string {
  if (e.alg === "ML-DSA-44")
    return formatVkey(origin, ML_DSA_44, new Uint8Array(Buffer.from(String(e.public_jwk.pub), "base64url")));
  return formatVkey(origin, ED25519, new Uint8Array(Buffer.from(String(e.public_jwk.x), "base64url")));
}

/**
 * Every checkpoint key the log has had (Ed25519 and ML-DSA-44), as vkeys with their validity:
 * `…/tlog/key` serves the current one; a checkpoint signed before a rotation verifies with the
 * key valid when it was signed.
 */
export async function logKeyHistory(ctx: Pick<Ctx, "db" | "keys">, tenantId: string) {
  const origin = await originOf(ctx.db, tenantId);
  if (!origin) throw notFound("log");
  const out: Array<PublishedKey & { vkey: string }> = [];
  for (const [purpose, alg] of [
    [TLOG_KEY, "Ed25519"],
    [TLOG_ML_DSA_KEY, "ML-DSA-44"],
  ] as const)
    for (const e of await ctx.keys.history(purpose, alg))
      out.push({ ...published(purpose, e), vkey: vkeyOf(origin, e) });
  return { origin, retention: KEY_RETENTION, keys: out };
}
