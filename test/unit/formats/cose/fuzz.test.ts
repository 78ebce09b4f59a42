import { describe, expect, it } from "vitest";
import {
  attachReceipts,
  checkRegistrationPolicy,
  registeredEvent,
  statementToEventAttributes,
} from "../../../../src/core/scitt/index.js";
import { decodeCbor } from "../../../../src/formats/cbor/index.js";
import {
  decodeReceipt,
  decodeSeal,
  decodeSign1,
  HEADER,
  verifyReceipt,
  verifySeal,
  verifySign1,
} from "../../../../src/formats/cose/index.js";
import { verifyStatement } from "../../../../src/verify/index.js";
import { vectorPublicKey } from "../../../helpers/vector-key.js";
import {
  buildFixture,
  fixtureKeys,
  hex,
  mutate,
  payloadHash,
  prng,
  receiptSafeToVerify,
  typedOnly,
} from "./fixture.js";

const fx = buildFixture();
const key = vectorPublicKey;
const trust = { keys: fixtureKeys.issuerKeys, caCertificatesPem: [] };

/** Every decoder on one input: each either answers or throws a typed error. */
function decodeAll(input: Uint8Array, untyped: string[]): void {
  typedOnly(untyped, "decodeCbor", () => decodeCbor(input));
  typedOnly(untyped, "decodeSign1", () => decodeSign1(input));
  typedOnly(untyped, "decodeReceipt", () => decodeReceipt(input));
  typedOnly(untyped, "decodeSeal", () => decodeSeal(input));
  typedOnly(untyped, "statementToEventAttributes", () => statementToEventAttributes(input));
  typedOnly(untyped, "registeredEvent", () => registeredEvent(input));
  typedOnly(untyped, "attachReceipts", () => attachReceipts(input, [fx.receipt]));
}

/** Runs a verifier, which must never throw; a throw is recorded and counts as "not verified". */
function verdict(thrown: string[], label: string, f: () => boolean): boolean {
  try {
    return f();
  } catch (err) {
    thrown.push(`${label}: ${String(err)}`);
    return false;
  }
}

/** What the signature covers (plus, for receipts, what the peak is recomputed from). */
function signedParts(bytes: Uint8Array): string {
  const s = decodeSign1(bytes);
  return [hex(s.protectedBytes), s.payload ? hex(s.payload) : "nil", hex(s.signature)].join("|");
}
function receiptParts(bytes: Uint8Array): string {
  const r = decodeReceipt(bytes);
  return `${signedParts(bytes)}|${r.mmrIndex}|${r.path.map(hex).join(",")}`;
}

/** False when a transparent statement carries a receipt whose verification would never return. */
function receiptsSafe(bytes: Uint8Array): boolean {
  try {
    const attached = decodeSign1(bytes).unprotectedHeader.get(HEADER.receipts);
    const list = Array.isArray(attached) ? attached : [];
    return list.every((r) => !(r instanceof Uint8Array) || receiptSafeToVerify(r));
  } catch {
    return true;
  }
}

/** Every verifier on an input that is not one of the fixture messages: none may accept it. */
function nothingVerifies(input: Uint8Array, thrown: string[]): string[] {
  const accepted: string[] = [];
  if (verdict(thrown, "verifySign1", () => verifySign1(input, key))) accepted.push("verifySign1");
  if (verdict(thrown, "verifySign1 detached", () => verifySign1(input, key, payloadHash)))
    accepted.push("verifySign1 detached");
  if (verdict(thrown, "verifySeal", () => verifySeal(input, key))) accepted.push("verifySeal");
  if (
    receiptSafeToVerify(input) &&
    verdict(thrown, "verifyReceipt", () => verifyReceipt(input, fx.leaf, key).ok)
  )
    accepted.push("verifyReceipt");
  if (verdict(thrown, "policy", () => checkRegistrationPolicy(input, trust).ok)) accepted.push("policy");
  if (receiptsSafe(input) && verdict(thrown, "verifyStatement", () => verifyStatement(input, fixtureKeys).ok))
    accepted.push("verifyStatement");
  return accepted;
}

/** Random bytes, a third of them behind a COSE_Sign1 prefix so the decoders get past the first byte. */
function randomInput(rand: (n: number) => number, n: number): Uint8Array {
  const prefix = [[], [0xd2, 0x84], [0xd2, 0x84, 0x40, 0xa0]][n % 3] as number[];
  const body = Array.from({ length: rand(96) }, () => rand(256));
  return Uint8Array.from([...prefix, ...body]);
}

describe("decoder and verifier fuzzing (seeded)", () => {
  it("random byte strings: only typed errors, and nothing verifies", () => {
    const rand = prng(0xc05e);
    const untyped: string[] = [];
    const thrown: string[] = [];
    const accepted: string[] = [];
    for (let n = 0; n < 1200; n++) {
      const input = randomInput(rand, n);
      decodeAll(input, untyped);
      for (const a of nothingVerifies(input, thrown)) accepted.push(`${a}: ${hex(input)}`);
    }
    expect(untyped.slice(0, 5)).toEqual([]);
    expect(thrown.slice(0, 5)).toEqual([]);
    expect(accepted).toEqual([]);
  });

  // Each base is a valid message; `check` says whether a mutated copy was accepted by its verifier.
  const bases: Array<[string, Uint8Array, (m: Uint8Array, thrown: string[]) => boolean, typeof signedParts]> =
    [
      [
        "attached statement",
        fx.attached,
        (m, t) => verdict(t, "sign1", () => verifySign1(m, key)),
        signedParts,
      ],
      [
        "detached statement",
        fx.detached,
        (m, t) => verdict(t, "sign1", () => verifySign1(m, key, payloadHash)),
        signedParts,
      ],
      [
        "RFC 9995 statement",
        fx.rfc9995,
        (m, t) => verdict(t, "sign1", () => verifySign1(m, key)),
        signedParts,
      ],
      [
        "receipt",
        fx.receipt,
        (m, t) => receiptSafeToVerify(m) && verdict(t, "receipt", () => verifyReceipt(m, fx.leaf, key).ok),
        receiptParts,
      ],
      ["seal", fx.seal, (m, t) => verdict(t, "seal", () => verifySeal(m, key)), signedParts],
      [
        "transparent statement",
        fx.transparent,
        (m, t) => receiptsSafe(m) && verdict(t, "transparent", () => verifyStatement(m, fixtureKeys).ok),
        signedParts,
      ],
    ];

  it.each(bases)(
    "mutations of a valid %s: typed errors only, and no change to signed content verifies",
    (_name, base, check, parts) => {
      expect(check(base, [])).toBe(true);
      const rand = prng(base.length);
      const untyped: string[] = [];
      const thrown: string[] = [];
      const forged: string[] = [];
      let decoded = 0;
      for (let n = 0; n < 300; n++) {
        const m = mutate(base, rand);
        if (hex(m) === hex(base)) continue;
        decodeAll(m, untyped);
        typedOnly(untyped, "probe", () => decodeSign1(m) && decoded++);
        // A change to unsigned bytes may still verify; a change to anything signed must not.
        if (check(m, thrown) && parts(m) !== parts(base)) forged.push(hex(m));
      }
      expect(untyped.slice(0, 5)).toEqual([]);
      expect(thrown.slice(0, 5)).toEqual([]);
      expect(forged).toEqual([]);
      // The mutations must reach the COSE layer, not just break the outer CBOR.
      expect(decoded).toBeGreaterThan(30);
    },
  );
});
