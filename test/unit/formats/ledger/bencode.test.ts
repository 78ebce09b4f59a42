import { describe, expect, it } from "vitest";
import { bencode, bencodeText } from "../../../../src/formats/ledger/bencode.js";

/** Bencode as text by the rules, written plainly: own keys, nulls left out, keys in UTF-16 order (all ASCII here). */
function reference(value: unknown): string {
  if (typeof value === "string") return `${value.length}:${value}`;
  if (typeof value === "number") return `i${value}e`;
  if (Array.isArray(value)) return `l${value.map(reference).join("")}e`;
  const map = value as Record<string, unknown>;
  const keys = Object.keys(map)
    .filter((k) => map[k] !== null)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `d${keys.map((k) => `${k.length}:${k}${reference(map[k])}`).join("")}e`;
}

/** A deterministic generator, so a failure is the same on every run. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x80000000;
  };
}

function map(next: () => number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = Math.floor(next() * (next() < 0.2 ? 60 : 8));
  for (let i = 0; i < n; i++) {
    const key = Array.from({ length: 1 + Math.floor(next() * 4) }, () =>
      String.fromCharCode(0x21 + Math.floor(next() * 94)),
    ).join("");
    const r = next();
    out[key] =
      r < 0.15
        ? null
        : r < 0.3 && depth < 2
          ? map(next, depth + 1)
          : r < 0.4
            ? Math.floor(next() * 1000)
            : key;
  }
  return out;
}

describe("bencode's maps", () => {
  it("write their present keys in order, few keys or many, as the rules say", () => {
    const next = random(7);
    for (let i = 0; i < 2_000; i++) {
      const value = map(next, 0);
      expect(bencodeText("", value, false)).toBe(reference(value));
      expect(bencodeText("", value, true)).toBe(reference(value));
    }
  });

  it("write integer-like keys in string order, and no inherited key", () => {
    const value = { b: "x", "10": "ten", "9": "nine", a: null, A: 1 };
    expect(bencodeText("", value)).toBe("d2:103:ten1:94:nine1:Ai1e1:b1:xe");
    const child = Object.create({ inherited: "no" }) as Record<string, unknown>;
    child.own = "yes";
    expect(Buffer.from(bencode(child)).toString()).toBe("d3:own3:yese");
  });
});
