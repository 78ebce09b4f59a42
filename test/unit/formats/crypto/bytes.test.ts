import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareBytes,
  concatBytes,
  fromBase64,
  fromHex,
  sameBytes,
  toBase64,
  toBase64url,
  toHex,
  u64be,
} from "../../../../src/formats/crypto/bytes.js";

// The verifier's byte helpers stand where Node's Buffer stood: each must answer as Buffer did.
describe("byte helpers (what Buffer did, in any JavaScript)", () => {
  it("encode and decode hex and base64 (both alphabets, padded or not) as Buffer does", () => {
    for (let n = 0; n < 70; n++) {
      const b = new Uint8Array(randomBytes(n));
      const buf = Buffer.from(b);
      expect(toHex(b)).toBe(buf.toString("hex"));
      expect(fromHex(buf.toString("hex"))).toEqual(b);
      expect(toBase64(b)).toBe(buf.toString("base64"));
      expect(toBase64url(b)).toBe(buf.toString("base64url"));
      expect(fromBase64(buf.toString("base64"))).toEqual(b);
      expect(fromBase64(buf.toString("base64url"))).toEqual(b);
    }
    expect(fromHex("00ffzz11")).toEqual(Uint8Array.of(0, 255));
    // A pair that is only half hex ends the bytes there, as Node's decoder does (parseInt read "0g" as 0).
    for (const text of ["0g", "ab cd", "AbCd", "abc", "ff\u00e90a", "+1", ""])
      expect(fromHex(text), text).toEqual(new Uint8Array(Buffer.from(text, "hex")));
    expect(() => fromBase64("ab$d")).toThrow(TypeError);
    expect(() => fromBase64("abcde")).toThrow(TypeError);
  });

  it("order, compare, join and write 64-bit integers as Buffer does", () => {
    for (let i = 0; i < 200; i++) {
      const a = new Uint8Array(randomBytes(i % 5));
      const b = new Uint8Array(randomBytes((i * 7) % 5));
      expect(compareBytes(a, b)).toBe(Buffer.compare(a, b));
      expect(sameBytes(a, b)).toBe(Buffer.compare(a, b) === 0);
      expect(concatBytes([a, b])).toEqual(new Uint8Array(Buffer.concat([a, b])));
    }
    const n = 0x8fa97ef269039b00n;
    const buf = Buffer.alloc(8);
    buf.writeBigUInt64BE(n);
    expect(u64be(n)).toEqual(new Uint8Array(buf));
  });

  it("writes any safe integer as its BigInt is written", () => {
    const asBigInt = (v: number) => {
      const b = Buffer.alloc(8);
      b.writeBigUInt64BE(BigInt(v));
      return new Uint8Array(b);
    };
    for (const v of [
      0,
      1,
      255,
      256,
      2 ** 31,
      2 ** 32 - 1,
      2 ** 32,
      2 ** 32 + 1,
      2 ** 48 + 12345,
      Number.MAX_SAFE_INTEGER,
    ])
      expect(u64be(v), String(v)).toEqual(asBigInt(v));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (v) => {
        expect(u64be(v)).toEqual(asBigInt(v));
      }),
    );
  });
});
