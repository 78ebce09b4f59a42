import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { opsPerSecond } from "../micro.js";
import type { Limit } from "../results.js";
import type { ScenarioContext } from "../scenario.js";
import { fn, load } from "./load-module.js";

const enc = new TextEncoder();

/** A hashed-statement-like protected header: alg, kid, CWT iss/sub, payload hash alg (-6800). */
function statementHeader(): Map<unknown, unknown> {
  return new Map<unknown, unknown>([
    [1, -7],
    [4, enc.encode("bench-kid")],
    [
      15,
      new Map<unknown, unknown>([
        [1, "https://bench.example"],
        [2, "vcon://bench"],
      ]),
    ],
    [-6800, -16],
    [-6802, "application/vcon+json"],
  ]);
}

/** COSE statements and receipts (src/core/cose) against raw ES256, the design's 80% target. */
export async function benchCose(ctx: ScenarioContext, target: number): Promise<void> {
  const cose = await load("../../src/core/cose/index.js");
  const sign1 = fn(cose, "signSign1");
  const verify1 = fn(cose, "verifySign1");
  const signer = fn(cose, "nodeSigner");
  if (!sign1 || !verify1 || !signer) {
    ctx.results.na("core", "COSE statements", "src/core/cose (signSign1, verifySign1) not built yet");
    return;
  }
  const ms = ctx.opts.microMs;
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const sign = signer(privateKey);
  const payload = createHash("sha256").update(randomBytes(300)).digest();
  const make = () => sign1({ protectedHeader: statementHeader(), payload }, sign) as Uint8Array;
  const statement = make();
  // Timing a verifier that says "no" would time its error path: check it says "yes" first.
  if (verify1(statement, publicKey) !== true) {
    ctx.results.na("core", "COSE statements", "a freshly signed statement does not verify (src/core/cose)");
    return;
  }
  const limits = ctx.results.limits;
  const vs = (key: string, label: string): Limit => {
    const raw = limits.get(key);
    return { value: raw === undefined ? undefined : raw * target, label: `${target * 100}% of ${label}` };
  };
  const signed = opsPerSecond(make, ms);
  ctx.results.add("core", "statement build + ES256 sign", signed, "ops/s", vs("es256.sign", "ES256 sign"));
  const verified = opsPerSecond(() => verify1(statement, publicKey), ms);
  ctx.results.add("core", "statement decode + verify", verified, "ops/s", vs("es256.verify", "ES256 verify"));
  const receipt = fn(cose, "buildReceipt");
  if (!receipt) return;
  const path = Array.from({ length: 20 }, () => randomBytes(32));
  const input = {
    kid: "bench-kid",
    issuer: "https://bench.example",
    subject: "tenant/x",
    mmrIndex: 1_048_000,
    path,
    peak: randomBytes(32),
  };
  const built = opsPerSecond(() => receipt(input, sign), ms);
  ctx.results.add(
    "core",
    "receipt build + sign (20-hash path)",
    built,
    "ops/s",
    vs("es256.sign", "ES256 sign"),
  );
}
