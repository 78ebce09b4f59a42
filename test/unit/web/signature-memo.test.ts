import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { jwkOfPoint } from "../../../src/formats/crypto/public-key.js";
import type { EcJwk, PublicKey } from "../../../src/verify/index.js";
import { type NativeVerify, SignatureMemo, webCryptoVerify } from "../../../src/web/signature-memo.js";

const JWK: EcJwk = { kty: "EC", crv: "P-256", x: "x", y: "y" };
const bytes = (...b: number[]) => Uint8Array.from(b);

/** A portable key that answers true for one signature, counting what it is asked. */
function portable(valid: Uint8Array) {
  const calls: string[] = [];
  const make = (jwk: EcJwk): PublicKey => ({
    jwk,
    verify(hash, data, signature) {
      calls.push(`${hash}:${data.join(",")}:${signature.join(",")}`);
      return signature.length === valid.length && signature.every((b, i) => b === valid[i]);
    },
  });
  return { make, calls };
}

/** A native check that answers like the portable key, counting what it is asked. */
function native(valid: Uint8Array) {
  const asked: string[] = [];
  const verify: NativeVerify = async ({ signature, data }) => {
    asked.push(`${data.join(",")}:${signature.join(",")}`);
    return signature.length === valid.length && signature.every((b, i) => b === valid[i]);
  };
  return { verify, asked };
}

describe("SignatureMemo", () => {
  it("without a native check, asks the portable key once per exact question and remembers failures", async () => {
    const { make, calls } = portable(bytes(1, 2));
    const memo = new SignatureMemo(undefined, make);
    const key = memo.makeKey(JWK);
    const answers = await memo.judge(() => [
      key.verify("sha256", bytes(9), bytes(1, 2)),
      key.verify("sha256", bytes(9), bytes(1, 2)),
      key.verify("sha256", bytes(9), bytes(1, 3)),
      key.verify("sha256", bytes(9), bytes(1, 3)),
      key.verify("sha384", bytes(9), bytes(1, 2)),
      key.verify("sha256", bytes(8), bytes(1, 2)),
    ]);
    expect(answers).toEqual([true, true, false, false, true, true]);
    expect(calls).toHaveLength(4);
  });

  it("a judgement whose every signature checks out natively is returned from its first round", async () => {
    const { make, calls } = portable(bytes(1));
    const n = native(bytes(1));
    const memo = new SignatureMemo(n.verify, make);
    const key = memo.makeKey(JWK);
    let rounds = 0;
    const result = await memo.judge(() => {
      rounds++;
      return [key.verify("sha256", bytes(5), bytes(1)), key.verify("sha256", bytes(6), bytes(1))];
    });
    expect(result).toEqual([true, true]);
    expect(rounds).toBe(1);
    expect(n.asked).toHaveLength(2);
    expect(calls).toHaveLength(0);
    // Remembered: a later judgement asks nothing again.
    expect(await memo.judge(() => key.verify("sha256", bytes(5), bytes(1)))).toBe(true);
    expect(n.asked).toHaveLength(2);
  });

  it("never returns a round judged on an assumption that proved false: it judges again knowing the answer", async () => {
    const { make, calls } = portable(bytes(1));
    const n = native(bytes(1));
    const memo = new SignatureMemo(n.verify, make);
    const key = memo.makeKey(JWK);
    const seen: boolean[][] = [];
    const result = await memo.judge(() => {
      // A verifier that tries a second candidate when the first fails, as leaves are tried.
      const first = key.verify("sha256", bytes(1), bytes(7));
      const second = first ? true : key.verify("sha256", bytes(2), bytes(1));
      seen.push([first, second]);
      return first ? "first" : second ? "second" : "none";
    });
    expect(seen[0]).toEqual([true, true]);
    expect(result).toBe("second");
    // The refused signature was confirmed by the portable check before counting as refused.
    expect(calls).toEqual(["sha256:1:7"]);
  });

  it("a signature the native check cannot take is checked with the portable code", async () => {
    const { make, calls } = portable(bytes(3));
    const memo = new SignatureMemo(() => Promise.reject(new Error("unsupported")), make);
    const key = memo.makeKey(JWK);
    expect(await memo.judge(() => key.verify("sha256", bytes(0), bytes(3)))).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it("keeps each key's answers to itself, and one judgement at a time", async () => {
    const { make, calls } = portable(bytes(1));
    const memo = new SignatureMemo(undefined, make);
    const [a, b] = [memo.makeKey(JWK), memo.makeKey({ ...JWK, x: "other" })];
    expect(a.verify("sha256", bytes(0), bytes(1))).toBe(true);
    expect(b.verify("sha256", bytes(0), bytes(1))).toBe(true);
    expect(calls).toHaveLength(2);
    const nativeMemo = new SignatureMemo(native(bytes(1)).verify, make);
    const slow = nativeMemo.judge(() => new Promise((r) => setTimeout(r, 10)));
    await expect(nativeMemo.judge(() => 1)).rejects.toThrow(/one judgement at a time/);
    await slow;
  });
});

describe("webCryptoVerify", () => {
  it("checks ECDSA P-256 as the portable key does, high-S signatures included, and refuses others", async () => {
    const verify = webCryptoVerify();
    expect(verify).toBeDefined();
    const secret = p256.utils.randomSecretKey();
    const point = p256.getPublicKey(secret, false);
    const jwk = jwkOfPoint("P-256", point.slice(1, 33), point.slice(33));
    const data = new TextEncoder().encode("signed bytes");
    const sig = p256.sign(sha256(data), secret, { prehash: false, format: "compact" });
    // The same signature with s replaced by n - s: valid, and what OpenSSL-signed receipts may carry.
    const n = p256.Point.Fn.ORDER;
    const s = BigInt(`0x${Buffer.from(sig.slice(32)).toString("hex")}`);
    const high = Uint8Array.from([
      ...sig.slice(0, 32),
      ...Buffer.from((n - s).toString(16).padStart(64, "0"), "hex"),
    ]);
    const ask = (signature: Uint8Array, signed = data) =>
      (verify as NativeVerify)({ jwk, hash: "sha256", data: signed, signature });
    expect(await ask(sig)).toBe(true);
    expect(await ask(high)).toBe(true);
    expect(await ask(sig, new TextEncoder().encode("other bytes"))).toBe(false);
    expect(await ask(sig.slice(1))).toBe(false);
  });
});
