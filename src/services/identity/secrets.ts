import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { availableParallelism } from "node:os";
import { ApiError } from "../../errors/api-error.js";
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

/**
 * A fresh client secret: 32 random bytes as 64 lowercase hex digits, the form of DataTrails'
 * secrets (appregistrationsv1's example). Clients lean on it: the SDK's functional test of a
 * wrong secret sends the right one with its first character replaced by "X", which was the
 * right one again for the one base64url secret in 64 that began with "X".
 */
export function newSecret(): string {
  return randomBytes(32).toString("hex");
}

/**
 * A secret we generated (`newSecret`: 256 random bits), stored as `hmac-sha256$salt$hash`
 * (HMAC-SHA-256 keyed by a random salt, both base64). NIST SP 800-63B (5.1.2.2) asks a
 * password-hashing function only of secrets with fewer than 112 bits of entropy: no guessing
 * reaches 256 bits whatever the hash costs, and a wrong guess then costs the service a
 * microsecond, not an scrypt, so wrong secrets sent from many addresses take no share of the
 * machine worth speaking of.
 */
export function hashGeneratedSecret(secret: string): string {
  const salt = randomBytes(16);
  return `hmac-sha256$${salt.toString("base64")}$${hmac(salt, secret).toString("base64")}`;
}

const hmac = (salt: Buffer, secret: string) => createHmac("sha256", salt).update(secret).digest();

/**
 * A secret someone chose (a bootstrap file's owner secret), stored as `scrypt$N$r$p$salt$hash`,
 * salt and hash base64: it may be guessable, so a stolen table must be slow to search.
 */
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
 * Constant-time check of `secret` against a stored hash of either scheme. `verified` holds, by
 * stored hash, the SHA-256 of each scrypt-stored secret that verified: a repeat check compares
 * digests instead of running scrypt.
 */
export async function verifySecret(
  secret: string,
  stored: string,
  verified: Map<string, Buffer>,
): Promise<boolean> {
  if (stored.startsWith("hmac-sha256$")) {
    const [, salt, hash] = stored.split("$");
    if (!salt || !hash) return false;
    const want = Buffer.from(hash, "base64");
    const got = hmac(Buffer.from(salt, "base64"), secret);
    return got.length === want.length && timingSafeEqual(got, want);
  }
  const digest = createHash("sha256").update(secret).digest();
  const cached = verified.get(stored);
  // A match is answered at once; a mismatch still runs scrypt, so a wrong secret costs the same
  // whether or not the application signed in lately.
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
