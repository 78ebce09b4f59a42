import { describe, expect, it } from "vitest";
import {
  CborBstr,
  CborError,
  type CborValue,
  decodeCbor,
  encodeCbor,
  Tagged,
} from "../../../../src/formats/cbor/index.js";
import { fixtureJson } from "../../../helpers/fixtures.js";

interface Statements {
  statements: Record<
    string,
    { protectedHeaderHex: string; coseSign1AttachedHex: string; coseSign1DetachedHex: string }
  >;
}
const vectors = fixtureJson<Statements>("vectors/signed-statement-generated.json");
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const bytes = (h: string) => new Uint8Array(Buffer.from(h, "hex"));

describe("deterministic CBOR", () => {
  it("round-trips the generated statements byte for byte", () => {
    for (const s of Object.values(vectors.statements)) {
      for (const h of [s.protectedHeaderHex, s.coseSign1AttachedHex, s.coseSign1DetachedHex])
        expect(hex(encodeCbor(decodeCbor(bytes(h))))).toBe(h);
    }
  });

  it("encodes shortest heads and sorts map keys by their encoding", () => {
    expect(hex(encodeCbor(23))).toBe("17");
    expect(hex(encodeCbor(24))).toBe("1818");
    expect(hex(encodeCbor(-1))).toBe("20");
    expect(hex(encodeCbor(65536))).toBe("1a00010000");
    expect(
      hex(
        encodeCbor(
          new Map<number, number>([
            [-1, 1],
            [24, 2],
            [1, 3],
          ]),
        ),
      ),
    ).toBe("a30103181802" + "2001");
    expect(hex(encodeCbor(new Tagged(18, [])))).toBe("d280");
    expect(() => encodeCbor(1.5)).toThrow(TypeError);
    expect(hex(encodeCbor(2n ** 64n - 1n))).toBe("1bffffffffffffffff");
    // Beyond 64 bits there is no CBOR integer: refused rather than silently truncated.
    expect(() => encodeCbor(2n ** 64n)).toThrow(TypeError);
  });

  it("writes text of every length and kind of character with the head of its UTF-8 length", () => {
    // Short ASCII is copied unit by unit, the rest encoded behind the longest possible head and moved:
    // both must agree with TextEncoder around every head boundary (24, 256, 65536 bytes).
    const utf8 = new TextEncoder();
    const head = (n: number) =>
      n < 24
        ? (0x60 | n).toString(16)
        : n < 256
          ? `78${n.toString(16).padStart(2, "0")}`
          : n < 65536
            ? `79${n.toString(16).padStart(4, "0")}`
            : `7a${n.toString(16).padStart(8, "0")}`;
    const units = ["a", "é", "€", "😀", "\ud800"];
    const lengths = [
      0, 1, 7, 8, 9, 22, 23, 24, 25, 63, 64, 65, 84, 85, 86, 90, 127, 128, 255, 256, 21845, 21846, 65536,
    ];
    for (const unit of units)
      for (const n of lengths) {
        const s = unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
        const expected = utf8.encode(s);
        expect(hex(encodeCbor(s)), `${JSON.stringify(unit)} × ${n}`).toBe(
          head(expected.length) + hex(expected),
        );
      }
    // ASCII that turns out not to be after the first units, and map keys taking either path.
    expect(hex(encodeCbor(`${"a".repeat(40)}é`))).toBe(`782a${"61".repeat(40)}c3a9`);
    expect(
      hex(
        encodeCbor(
          new Map([
            [`${"b".repeat(70)}é`, 1],
            ["a", 2],
          ]),
        ),
      ),
    ).toBe(`a2616102${"7848"}${"62".repeat(70)}c3a901`);
  });

  it("writes a CborBstr as the byte string of its value's encoding", () => {
    const path = Array.from({ length: 20 }, (_, i) => new Uint8Array(32).fill(i));
    const values: CborValue[] = [[1_048_000, path], [], "x".repeat(300), new Map([[1, "a"]])];
    for (const value of values)
      expect(hex(encodeCbor([new CborBstr(value)]))).toBe(hex(encodeCbor([encodeCbor(value)])));
  });
});

describe("strict decoding", () => {
  it.each([
    ["duplicate map keys", "a2016161016162"],
    ["indefinite array", "9f01ff"],
    ["trailing bytes", "0101"],
    ["indefinite byte string", "5f41004100ff"],
    ["deep nesting", `${"81".repeat(100)}01`],
    ["truncated", "5820aabb"],
    ["undefined", "f7"],
    ["float NaN", "f97e00"],
  ])("rejects %s with a CborError", (_name, h) => {
    expect(() => decodeCbor(bytes(h))).toThrow(CborError);
  });

  it("keeps a leading U+FEFF in text (decoding is one to one and writes back the same bytes)", () => {
    const h = "a163efbbbf6101";
    const value = decodeCbor(bytes(h)) as Map<string, number>;
    expect([...value.keys()]).toEqual(["\ufeff"]);
    expect(hex(encodeCbor(value))).toBe(h);
    // Stripping it would make these two keys one and the map a duplicate-key map in disguise.
    expect(() => decodeCbor(bytes("a263efbbbf6101606102"))).not.toThrow();
  });

  it("refuses inputs over the size limit", () => {
    expect(() => decodeCbor(new Uint8Array(20), { maxBytes: 10 })).toThrow(CborError);
  });

  it("copies byte strings unless the caller owns the input (views), and reads the same values", () => {
    const input = encodeCbor([new Uint8Array([1, 2, 3]), new Uint8Array([4, 5])]);
    const copied = decodeCbor(input) as Uint8Array[];
    const viewed = decodeCbor(input, { views: true }) as Uint8Array[];
    expect(viewed).toEqual(copied);
    expect(copied[0]?.buffer).not.toBe(input.buffer);
    expect(viewed[0]?.buffer).toBe(input.buffer);
    input[2] = 9; // the first byte string's first byte
    expect(copied[0]).toEqual(new Uint8Array([1, 2, 3]));
    expect(viewed[0]).toEqual(new Uint8Array([9, 2, 3]));
  });
});
