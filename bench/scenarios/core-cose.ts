import {
  createHash,
  generateKeyPairSync,
  randomBytes,
  sign as signRaw,
  verify as verifyRaw,
} from "node:crypto";
import { buildReceipt } from "../../src/core/log/receipt.js";
import { ReceiptHeaders } from "../../src/core/log/receipt-headers.js";
import { signSign1 } from "../../src/core/log/sign1.js";
import { nodePublicKey, nodeSigner } from "../../src/core/node/crypto.js";
import { checkRegistrationPolicy } from "../../src/core/scitt/index.js";
import type { CborValue } from "../../src/formats/cbor/encode.js";
import { verifySign1 } from "../../src/formats/cose/sign1.js";
import { pairedRates } from "../micro.js";
import type { Limit } from "../results.js";
import type { ScenarioContext } from "../scenario.js";
import { x5chainFlood } from "./x5chain-flood.js";

const enc = new TextEncoder();

/** A hashed-statement-like protected header: alg, kid, CWT iss/sub, payload hash alg (-6800). */
function statementHeader(): Map<CborValue, CborValue> {
  return new Map<CborValue, CborValue>([
    [1, -7],
    [4, enc.encode("bench-kid")],
    [
      15,
      new Map<CborValue, CborValue>([
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
  const ms = ctx.opts.microMs;
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const sign = nodeSigner(privateKey);
  const verifier = nodePublicKey(publicKey);
  const payload = createHash("sha256").update(randomBytes(300)).digest();
  const make = () => signSign1({ protectedHeader: statementHeader(), payload }, sign);
  const statement = make();
  // Timing a verifier that says "no" would time its error path: check it says "yes" first.
  if (verifySign1(statement, verifier) !== true) {
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
    ...unit(against(rawVerify, () => verifySign1(statement, verifier), "ES256 verify")),
  );
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
  const headers = new ReceiptHeaders();
  ctx.results.add(
    "core",
    "receipt build + sign (20-hash path)",
    ...unit(against(rawSign, () => buildReceipt(input, sign, headers), "ES256 sign")),
  );
  // Registration by signature needs no token: a refusal must cost what reading its body costs,
  // whatever the statement holds (issue 31: ~2,800 certificates were parsed first, 0.6 s each
  // statement). The limit is a SHA-256 of the same bytes, interleaved: the decode alone is about
  // half of one; a quarter leaves room, and parsing the certificates would be hundreds of times.
  const flood = x5chainFlood();
  const trust = { keys: new Map(), caCertificatesPem: [] };
  const refusal = pairedRates(
    () => createHash("sha256").update(flood).digest(),
    () => checkRegistrationPolicy(flood, trust),
    ms,
  );
  ctx.results.add(
    "core",
    "x5chain flood statement refused (1 MiB, ~2,400 certificates)",
    refusal.b,
    "ops/s",
    { value: refusal.a * 0.25, label: "25% of SHA-256 of the same MiB, interleaved" },
  );
}
