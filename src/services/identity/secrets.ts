import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { availableParallelism } from "node:os";
import { ApiError } from "../../core/api/api-error.js";
import { WorkGate } from "./work-gate.js";

// N=2^14 takes ~40 ms here: slow for an attacker with a stolen table, and the context's
// verified secrets (`ctx.caches.verifiedSecrets`) keep repeat token requests of one client cheap.
const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

function scryptAsync(secret: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEYLEN, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** A fresh client secret: 32 random bytes, base64url. */
export function newSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** `scrypt$N$r$p$salt$hash`, salt and hash base64. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(secret, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`;
}

const VERIFIED_KEPT = 10_000;

/**
 * Secret checks that run scrypt: half the cores at once (one on two), ~1.5 s of them waiting at
 * most; past that a check is refused as busy (429) rather than queued without bound.
 */
const checks = new WorkGate(Math.max(1, Math.floor(availableParallelism() / 2)), 64);

const busy = () =>
  new ApiError("rate_limited", "too many secret checks in progress; try again shortly", [], {
    "Retry-After": "1",
  });

/**
 * Constant-time check of `secret` against a stored hash. `verified` holds, by stored hash, the
 * SHA-256 of each secret that verified: a repeat check compares digests instead of running scrypt.
 */
export async function verifySecret(
  secret: string,
  stored: string,
  verified: Map<string, Buffer>,
): Promise<boolean> {
  const digest = createHash("sha256").update(secret).digest();
  const cached = verified.get(stored);
  // A match is answered at once; a mismatch still runs scrypt, so a wrong secret costs the same
  // whether or not the application signed in lately (or exists: see the tokens' dummy check).
  if (cached && timingSafeEqual(cached, digest)) return true;
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const want = Buffer.from(hash, "base64");
  const got = await checks.run(() =>
    scryptAsync(secret, Buffer.from(salt, "base64"), Number(n), Number(r), Number(p)),
  );
  if (got === undefined) throw busy();
  const ok = got.length === want.length && timingSafeEqual(got, want);
  if (ok) {
    if (verified.size > VERIFIED_KEPT) verified.clear();
    verified.set(stored, digest);
  }
  return ok;
}
