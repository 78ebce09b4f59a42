import { Tagged as CborgTagged, encode, rfc8949EncodeOptions } from "cborg";
import { describe, expect, it } from "vitest";
import { type CborValue, decodeCbor, encodeCbor, Tagged } from "../../../../src/formats/cbor/index.js";
import { hex, mutate, prng, typedOnly } from "../cose/fixture.js";

type Rand = (n: number) => number;
const TEXTS = [
  "",
  "a",
  "iss",
  "vcon_operation",
  "é",
  "€uro",
  "😀",
  "\u0000",
  "x".repeat(30),
  "y".repeat(300),
];
const INTS = [0, 1, 23, 24, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER];

function randomInt(rand: Rand): number | bigint {
  const pick = rand(6);
  if (pick === 0) return 2n ** 63n + BigInt(rand(1000));
  if (pick === 1) return -(2n ** 60n) - BigInt(rand(1000));
  const n = INTS[rand(INTS.length)] as number;
  return pick === 2 ? -n : n;
}

/** A random CBOR value of the kinds the project writes (maps keyed by integers or text). */
function randomValue(rand: Rand, depth: number): CborValue {
  const kind = depth > 3 ? rand(4) : rand(8);
  if (kind === 0) return randomInt(rand);
  if (kind === 1) return TEXTS[rand(TEXTS.length)] as string;
  if (kind === 2) return Uint8Array.from({ length: rand(40) }, () => rand(256));
  if (kind === 3) return [true, false, null][rand(3)] as CborValue;
  if (kind === 4) return Array.from({ length: rand(4) }, () => randomValue(rand, depth + 1));
  if (kind === 5) return new Tagged(18, randomValue(rand, depth + 1));
  const m = new Map<CborValue, CborValue>();
  for (let k = rand(5); k > 0; k--) {
    const key = rand(2) ? randomInt(rand) : (TEXTS[rand(TEXTS.length)] as string);
    m.set(
      typeof key === "bigint" && key >= -(2n ** 53n) && key < 2n ** 53n ? Number(key) : key,
      randomValue(rand, depth + 1),
    );
  }
  return m;
}

/** The same value for cborg's own encoder (its Tagged class). */
function toCborg(v: CborValue): unknown {
  if (v instanceof Tagged) return new CborgTagged(v.tag, toCborg(v.value));
  if (Array.isArray(v)) return v.map(toCborg);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, toCborg(x)]));
  return v;
}

/** Maps with keys that collide once encoded (1 and 1n) cannot be written; the generator avoids them. */
function distinctKeys(v: CborValue): boolean {
  if (v instanceof Tagged) return distinctKeys(v.value);
  if (Array.isArray(v)) return v.every(distinctKeys);
  if (!(v instanceof Map)) return true;
  const encoded = new Set([...v.keys()].map((k) => hex(encodeCbor(k))));
  return encoded.size === v.size && [...v.values()].every(distinctKeys);
}

describe("deterministic CBOR properties (seeded)", () => {
  it("encodes random values exactly as an independent RFC 8949 deterministic encoder, and decodes them back", () => {
    const rand = prng(8949);
    let checked = 0;
    for (let n = 0; n < 800; n++) {
      const v = randomValue(rand, 0);
      if (!distinctKeys(v)) continue;
      const bytes = encodeCbor(v);
      expect(hex(bytes)).toBe(hex(encode(toCborg(v), rfc8949EncodeOptions)));
      const back = decodeCbor(bytes, { maxBytes: 1 << 20 });
      expect(hex(encodeCbor(back))).toBe(hex(bytes));
      checked++;
    }
    expect(checked).toBeGreaterThan(500);
  });

  it("writes back, unchanged in value, whatever the strict decoder accepts", () => {
    // attachReceipts re-encodes a received unprotected header, so an accepted value must be writable.
    const rand = prng(7049);
    const untyped: string[] = [];
    let accepted = 0;
    for (let n = 0; n < 3000; n++) {
      // Half random bytes, half one-byte edits of valid encodings (which reach deeper).
      const valid = encodeCbor(randomValue(rand, 2));
      const input = n % 2 ? mutate(valid, rand) : Uint8Array.from({ length: 1 + rand(24) }, () => rand(256));
      let value: CborValue;
      try {
        value = decodeCbor(input);
      } catch {
        continue;
      }
      accepted++;
      typedOnly(untyped, hex(input), () => expect(decodeCbor(encodeCbor(value))).toEqual(value));
    }
    expect(accepted).toBeGreaterThan(300);
    expect(untyped.slice(0, 5)).toEqual([]);
  });
});
