import { generateKeyPairSync, X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { signSign1 } from "../../src/core/log/sign1.js";
import { nodeSigner } from "../../src/core/node/crypto.js";
import { HEADER } from "../../src/formats/cose/sign1.js";

/** The package's root, found from this file whether it runs from bench/ (tsx) or dist/bench. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * A statement whose protected x5chain holds a real CA certificate over and over, up to the
 * COSE body limit (about 2,400 of them): before the bound, each was parsed before any check.
 */
export function x5chainFlood(): Uint8Array {
  const ca = new X509Certificate(readFileSync(join(packageRoot(), "fixtures", "pki", "ca.pem")));
  const der = new Uint8Array(ca.raw);
  const count = Math.floor((1000 * 1024) / (der.length + 3));
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const claims = new Map<number, string>([
    [1, "https://flood.example"],
    [2, "vcon://flood"],
  ]);
  const protectedHeader = new Map<number, unknown>([
    [HEADER.alg, -7],
    [HEADER.cwtClaims, claims],
    [HEADER.x5chain, Array.from({ length: count }, () => der)],
  ]);
  return signSign1(
    { protectedHeader: protectedHeader as never, payload: new Uint8Array(32) },
    nodeSigner(privateKey),
  );
}
