import {
  createHash,
  generateKeyPairSync,
  randomBytes,
  sign as signRaw,
  verify as verifyRaw,
} from "node:crypto";
import { pairedRates } from "../micro.js";
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

const unit = ([value, limit]: [number, Limit]): [number, string, Limit] => [value, "ops/s", limit];

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
  // The limit is raw ES256 with the same key and a 300-byte message, timed in windows that
  // alternate with the COSE operation's (see pairedRates), so both see the same machine.
  const msg = randomBytes(300);
  const rawSig = signRaw("sha256", msg, { key: privateKey, dsaEncoding: "ieee-p1363" });
  const rawSign = () => signRaw("sha256", msg, { key: privateKey, dsaEncoding: "ieee-p1363" });
  const rawVerify = () => verifyRaw("sha256", msg, { key: publicKey, dsaEncoding: "ieee-p1363" }, rawSig);
  const against = (raw: () => void, op: () => void, label: string): [number, Limit] => {
    const r = pairedRates(raw, op, ms);
    return [r.b, { value: r.a * target, label: `${target * 100}% of ${label}, interleaved` }];
  };
  ctx.results.add("core", "statement build + ES256 sign", ...unit(against(rawSign, make, "ES256 sign")));
  ctx.results.add(
    "core",
    "statement decode + verify",
    ...unit(against(rawVerify, () => verify1(statement, publicKey), "ES256 verify")),
  );
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
  // As the service signs receipts: with the encoded protected headers it keeps (ReceiptHeaders).
  const Headers = fn(cose, "ReceiptHeaders") as unknown as (new () => unknown) | undefined;
  const headers = Headers ? new Headers() : undefined;
  ctx.results.add(
    "core",
    "receipt build + sign (20-hash path)",
    ...unit(against(rawSign, () => receipt(input, sign, headers), "ES256 sign")),
  );
}
