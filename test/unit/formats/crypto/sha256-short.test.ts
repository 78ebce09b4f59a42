import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { nodeSha256 } from "../../../../src/core/node/crypto.js";
import { sha256 } from "../../../../src/formats/crypto/sha256.js";
import {
  SHORT_MESSAGE,
  sha256Into,
  sha256Range,
  sha256Short,
} from "../../../../src/formats/crypto/sha256-short.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const openssl = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("sha256Short", () => {
  it("gives FIPS 180-4's known answers", () => {
    const ascii = (s: string) => new TextEncoder().encode(s);
    expect(hex(sha256Short(new Uint8Array(0)))).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    expect(hex(sha256Short(ascii("abc")))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(hex(sha256Short(ascii("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")))).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
  });

  it("agrees with OpenSSL at every length across the one- and two-block padding and beyond", () => {
    for (let n = 0; n <= 300; n++) {
      for (let round = 0; round < 3; round++) {
        const m = randomBytes(n);
        expect(hex(sha256Short(m)), `length ${n}`).toBe(openssl(m));
      }
    }
  });

  it("agrees with OpenSSL on inputs of all ones and all zeros (carries, sign bits)", () => {
    for (const n of [55, 56, 63, 64, 65, 119, 120, 128]) {
      expect(hex(sha256Short(new Uint8Array(n).fill(0xff)))).toBe(openssl(new Uint8Array(n).fill(0xff)));
      expect(hex(sha256Short(new Uint8Array(n)))).toBe(openssl(new Uint8Array(n)));
    }
  });

  it("hashes a prefix and writes the digest beside it, in the same buffer", () => {
    const buf = new Uint8Array(65 + 32 + 7);
    buf.set(randomBytes(65));
    const want = openssl(buf.subarray(0, 65));
    sha256Into(buf, buf, 65, 65);
    expect(hex(buf.subarray(65, 97))).toBe(want);
    // Bytes around the digest are left alone.
    expect([...buf.subarray(97)]).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it("hashes bytes from any offset, at every length a node has and across block edges", () => {
    const buf = new Uint8Array(randomBytes(400));
    for (const from of [0, 1, 7, 64, 129])
      for (const length of [0, 41, 55, 56, 64, 65, 73, 119, 120, 200]) {
        const out = new Uint8Array(40);
        sha256Range(buf, from, length, out, 5);
        expect(hex(out.subarray(5, 37))).toBe(openssl(buf.subarray(from, from + length)));
      }
  });

  it("refuses a length past the input or a digest without room", () => {
    expect(() => sha256Into(new Uint8Array(4), new Uint8Array(32), 0, 5)).toThrow(RangeError);
    expect(() => sha256Into(new Uint8Array(4), new Uint8Array(40), 9)).toThrow(RangeError);
    expect(() => sha256Range(new Uint8Array(8), 5, 4, new Uint8Array(32), 0)).toThrow(RangeError);
    expect(() => sha256Range(new Uint8Array(8), -1, 4, new Uint8Array(32), 0)).toThrow(RangeError);
  });
});

describe("SHA-256 in parts, either side of the short path", () => {
  const lengths = [0, 1, 32, 65, SHORT_MESSAGE - 1, SHORT_MESSAGE, SHORT_MESSAGE + 1, 600];
  const splits = (m: Uint8Array) => [
    [m],
    [m.subarray(0, 1), m.subarray(1)],
    [m.subarray(0, m.length >> 1), m.subarray(m.length >> 1), new Uint8Array(0)],
  ];

  it("the portable sha256 agrees with OpenSSL", () => {
    for (const n of lengths) {
      const m = new Uint8Array(randomBytes(n));
      for (const parts of splits(m)) expect(hex(sha256(...parts)), `length ${n}`).toBe(openssl(m));
    }
  });

  it("node:crypto's nodeSha256 agrees with OpenSSL and returns what no later call overwrites", () => {
    for (const n of lengths) {
      const m = new Uint8Array(randomBytes(n));
      for (const parts of splits(m)) {
        const d = nodeSha256(...parts);
        nodeSha256(new Uint8Array(n).fill(1));
        expect(hex(d), `length ${n}`).toBe(openssl(m));
      }
    }
  });
});
