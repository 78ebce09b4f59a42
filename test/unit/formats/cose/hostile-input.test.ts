import { describe, expect, it } from "vitest";
import { buildReceipt } from "../../../../src/core/log/receipt.js";
import { signSign1 } from "../../../../src/core/log/sign1.js";
import { attachReceipts } from "../../../../src/core/scitt/index.js";
import {
  CborError,
  type CborValue,
  decodeCbor,
  encodeCbor,
  Tagged,
} from "../../../../src/formats/cbor/index.js";
import {
  CoseError,
  decodeReceipt,
  decodeSeal,
  decodeSign1,
  ES256,
  HEADER,
  verifyReceipt,
} from "../../../../src/formats/cose/index.js";
import { verifyStatement } from "../../../../src/verify/index.js";
import { deterministicSigner, vectorPublicKey } from "../../../helpers/vector-key.js";
import { buildFixture, fixtureKeys, isTypedError, unhex } from "./fixture.js";

const fx = buildFixture();

/** A COSE_Sign1 with the given parts and a dummy signature (decoders do not check signatures). */
function sign1(
  protectedHeader: Map<CborValue, CborValue>,
  unprotected: Map<CborValue, CborValue>,
  payload: Uint8Array,
) {
  return encodeCbor(new Tagged(18, [encodeCbor(protectedHeader), unprotected, payload, new Uint8Array(64)]));
}

/** The fixture receipt's fields with another inclusion index or path. */
function receiptWith(mmrIndex: number, path: Uint8Array[] = fx.path): Uint8Array {
  const r = { kid: "svc", issuer: "https://a.example", subject: "tenant/x", peak: fx.peak };
  return buildReceipt({ ...r, mmrIndex, path }, deterministicSigner);
}

/** Runs f and returns what it threw (undefined when it returned). */
function thrownBy(f: () => unknown): unknown {
  try {
    f();
    return undefined;
  } catch (err) {
    return err;
  }
}

describe("strict CBOR decoding of hostile input", () => {
  it.each([
    ["integer", "a2010001 01".replace(" ", "")],
    ["negative integer", "a2200020 01".replace(" ", "")],
    ["text", "a2616100616101"],
    ["byte string", "a2410001410002"],
    ["array", "a2810001810002"],
    ["empty array", "a280018002"],
  ])("refuses a map with a duplicate %s key", (_kind, h) => {
    expect(() => decodeCbor(unhex(h))).toThrow(CborError);
  });

  it.each([
    ["a truncated sequence", "62c328"],
    ["an overlong encoding", "62c080"],
    ["a UTF-16 surrogate", "63eda080"],
  ])("refuses text that is not valid UTF-8: %s", (_kind, h) => {
    // Lossy decoding would map different signed bytes to the same string (U+FFFD).
    expect(() => decodeCbor(unhex(h))).toThrow(CborError);
  });

  it.each([
    ["byte string", "5bffffffffffffffff"],
    ["text string", "7a7fffffff"],
    ["array", "9b0000000100000000"],
    ["map", "bb00000000ffffffff"],
  ])("refuses a %s whose declared length runs past the input, quickly", (_kind, h) => {
    const started = performance.now();
    expect(() => decodeCbor(unhex(h))).toThrow(CborError);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it.each([
    ["arrays", "81"],
    ["maps", "a101"],
    ["tags", "d2"],
  ])("refuses 100 000 nested %s with a CborError, not a stack overflow", (_kind, opener) => {
    const deep = unhex(`${opener.repeat(100_000)}00`);
    expect(() => decodeCbor(deep, { maxBytes: deep.length })).toThrow(CborError);
  });
});

describe("COSE decoders on hostile input", () => {
  it("decodeReceipt refuses a negative inclusion index (verifying one would never return)", () => {
    expect(() => decodeReceipt(receiptWith(-3))).toThrow(CoseError);
  });

  it("decodeReceipt refuses an index too large for exact MMR arithmetic (2^50 - 3 would never finish)", () => {
    expect(() => decodeReceipt(receiptWith(2 ** 50 - 3))).toThrow(CoseError);
  });

  it("verifyReceipt answers {ok: false} for a path longer than any MMR has, without throwing", () => {
    const long = Array.from({ length: 70 }, () => new Uint8Array(32));
    const receipt = receiptWith(0, long);
    let verdict: ReturnType<typeof verifyReceipt> | undefined;
    expect(() => {
      verdict = verifyReceipt(receipt, fx.leaf, vectorPublicKey);
    }).not.toThrow();
    expect(verdict?.ok).toBe(false);
  });

  it("decodeSeal reports a non-integer state field with a typed error", () => {
    const header = decodeSign1(fx.seal).protectedHeader;
    // {1: 3, 3: 1, 4: 1.5 (float64), 6: 1, 7: 2, 8: []}
    const payload = unhex("a6010303010" + "4fb3ff8000000000000" + "0601070208" + "80");
    const err = thrownBy(() => decodeSeal(sign1(header, new Map(), payload)));
    expect(err !== undefined && isTypedError(err), String(err)).toBe(true);
  });

  it("decodeSeal refuses a state that is not unsigned integers and 32-byte peaks", () => {
    const header = decodeSign1(fx.seal).protectedHeader;
    const state = (size: number, peak: Uint8Array) =>
      encodeCbor(
        new Map<CborValue, CborValue>([
          [1, size],
          [3, 1],
          [4, 1],
          [6, 1],
          [7, 2],
          [8, [peak]],
        ]),
      );
    expect(decodeSeal(sign1(header, new Map(), state(1, new Uint8Array(32)))).mmrSize).toBe(1);
    expect(() => decodeSeal(sign1(header, new Map(), state(-1, new Uint8Array(32))))).toThrow(CoseError);
    expect(() => decodeSeal(sign1(header, new Map(), state(1, new Uint8Array(31))))).toThrow(CoseError);
  });
});

describe("SCITT functions on hostile input", () => {
  it("attachReceipts on a statement with a float in its unprotected header fails with a typed error", () => {
    const s = decodeSign1(fx.attached);
    // [protected, {99: 1.5}, payload, signature]: the unprotected header is not signed, anyone can send this.
    const withFloat = unhex(
      `d284${hexHead(2, s.protectedBytes.length)}${Buffer.from(s.protectedBytes).toString("hex")}` +
        `a11863fb3ff8000000000000` +
        `5820${Buffer.from(s.payload as Uint8Array).toString("hex")}5840${Buffer.from(s.signature).toString("hex")}`,
    );
    const err = thrownBy(() => attachReceipts(withFloat, [fx.receipt]));
    expect(err === undefined || isTypedError(err), String(err)).toBe(true);
  });

  it("verifyStatement refuses receipts (394) that are not byte strings instead of ignoring them", () => {
    const s = decodeSign1(fx.attached);
    const unprotected = new Map<CborValue, CborValue>([[HEADER.receipts, [5]]]);
    const odd = encodeCbor(new Tagged(18, [s.protectedBytes, unprotected, s.payload, s.signature]));
    expect(verifyStatement(odd, fixtureKeys).ok).toBe(false);
  });

  it("verifyStatement answers a verdict for a signed statement without CWT claims that embeds a record", () => {
    const bare = signSign1(
      {
        protectedHeader: new Map<CborValue, CborValue>([
          [HEADER.alg, ES256],
          [HEADER.kid, new TextEncoder().encode("test-key-1")],
        ]),
        payload: new Uint8Array([1, 2, 3]),
      },
      deterministicSigner,
    );
    // The embedded record sits in the unprotected header: anyone can add one.
    const withRecord = attachReceipts(bare, [], { identity: "events/x", attributes: { a: "b" } });
    expect(verifyStatement(withRecord, fixtureKeys)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/attributes cannot be read/),
    });
  });
});

/** A CBOR head (major type, length) in hex, for hand-built messages. */
function hexHead(major: number, n: number): string {
  if (n < 24) return ((major << 5) | n).toString(16).padStart(2, "0");
  if (n < 256) return ((major << 5) | 24).toString(16) + n.toString(16).padStart(2, "0");
  return ((major << 5) | 25).toString(16) + n.toString(16).padStart(4, "0");
}
