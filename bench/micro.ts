import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign, verify } from "node:crypto";

/** Calls fn repeatedly for about `ms` milliseconds (after a short warm-up) and returns calls per second. */
export function opsPerSecond(fn: () => void, ms: number): number {
  const warmEnd = performance.now() + Math.min(200, ms / 4);
  while (performance.now() < warmEnd) fn();
  let n = 0;
  const start = performance.now();
  let now = start;
  // Reading the clock costs about as much as a small hash: look at it every 32 calls only.
  while (now - start < ms) {
    for (let i = 0; i < 32; i++) fn();
    n += 32;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

/** SHA-256 of 64-byte inputs per second (the size of an MMR interior node's input). */
export function sha256Rate(ms: number): number {
  const input = randomBytes(64);
  return opsPerSecond(() => createHash("sha256").update(input).digest(), ms);
}

function pair(kind: "ec" | "rsa"): { privateKey: KeyObject; publicKey: KeyObject } {
  return kind === "ec"
    ? generateKeyPairSync("ec", { namedCurve: "P-256" })
    : generateKeyPairSync("rsa", { modulusLength: 2048 });
}

/** ES256 (P-256, IEEE P1363 signatures as COSE needs) sign and verify rates of a 300-byte message. */
export function es256Rates(ms: number): { sign: number; verify: number } {
  const { privateKey, publicKey } = pair("ec");
  const msg = randomBytes(300);
  const sig = sign("sha256", msg, { key: privateKey, dsaEncoding: "ieee-p1363" });
  return {
    sign: opsPerSecond(() => sign("sha256", msg, { key: privateKey, dsaEncoding: "ieee-p1363" }), ms),
    verify: opsPerSecond(() => verify("sha256", msg, { key: publicKey, dsaEncoding: "ieee-p1363" }, sig), ms),
  };
}

/** RS256 (RSA 2048, PKCS#1 v1.5) sign and verify rates of a JWT-sized message. */
export function rs256Rates(ms: number): { sign: number; verify: number } {
  const { privateKey, publicKey } = pair("rsa");
  const msg = randomBytes(400);
  const sig = sign("sha256", msg, privateKey);
  return {
    sign: opsPerSecond(() => sign("sha256", msg, privateKey), ms),
    verify: opsPerSecond(() => verify("sha256", msg, publicKey, sig), ms),
  };
}

/**
 * Rates of `a` and `b` timed in alternating short windows, each the median of its windows.
 * A ratio of two rates taken seconds apart moves with whatever else the machine does
 * meanwhile (raw ES256 alone swings ±15% here between 1 s windows); interleaved, both
 * sides see the same conditions.
 */
export function pairedRates(a: () => void, b: () => void, ms: number, rounds = 10): { a: number; b: number } {
  const window = Math.max(20, ms / rounds);
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    as.push(opsPerSecond(a, window));
    bs.push(opsPerSecond(b, window));
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
  return { a: median(as), b: median(bs) };
}
