import { describe, expect, it } from "vitest";
import { CborError, decodeCbor, encodeCbor, Tagged } from "../../../src/core/cbor/index.js";
import { sharedJson } from "../../helpers/shared.js";

interface Statements {
  statements: Record<
    string,
    { protectedHeaderHex: string; coseSign1AttachedHex: string; coseSign1DetachedHex: string }
  >;
}
const vectors = sharedJson<Statements>("vectors/signed-statement-generated.json");
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

  it("refuses inputs over the size limit", () => {
    expect(() => decodeCbor(new Uint8Array(20), { maxBytes: 10 })).toThrow(CborError);
  });
});
