import { describe, expect, it } from "vitest";
import { appendLeaves } from "../../../../src/core/log/mmr-append.js";
import { buildReceipt, buildRfc9162Receipt } from "../../../../src/core/log/receipt.js";
import { appendLeafHashes } from "../../../../src/core/log/tree-append.js";
import { type CborValue, encodeCbor } from "../../../../src/formats/cbor/index.js";
import { carriedKeyOf } from "../../../../src/formats/cose/cnf-key.js";
import {
  decodeReceipt,
  decodeSign1,
  HEADER,
  verifyReceipt,
  verifyRfc9162Receipt,
} from "../../../../src/formats/cose/index.js";
import { includedRoot, inclusionProof } from "../../../../src/formats/mmr/index.js";
import { leafHash, inclusionProof as treeProof, treeRoot } from "../../../../src/formats/rfc9162/index.js";
import { es256KeyPair } from "../../../helpers/es256-key.js";

/*
 * Receipts carry their signing key in the CWT `cnf` claim, as DataTrails' do (their clients
 * verify with the key they find there). Ours never take a key from a receipt: a carried key is
 * only compared with the one the checker pinned, and a receipt carrying another is refused,
 * even when the pinned key's signature over it is good.
 */
const leaves = Array.from({ length: 5 }, (_, i) => new Uint8Array(32).fill(i + 1));
const mmr = appendLeaves(0, leaves, () => new Uint8Array());
const node = (i: number) => mmr.nodes[i] as Uint8Array;
const mmrIndex = mmr.leafIndices[3] as number;
const path = inclusionProof(mmr.newSize, mmrIndex, node);
const peak = includedRoot(mmrIndex, leaves[3] as Uint8Array, path);
const base = { kid: "svc", issuer: "https://ts.example", subject: "tenant/x", mmrIndex, path, peak };

describe("the key a receipt carries (cnf)", () => {
  const signer = es256KeyPair();
  const other = es256KeyPair();

  it("is written as DataTrails writes it: protected 15 / 8 / 1, an EC2 COSE_Key of the signing key", () => {
    const receipt = buildReceipt({ ...base, key: signer.publicKey.jwk }, signer.privateKey);
    const claims = decodeSign1(receipt).protectedHeader.get(HEADER.cwtClaims) as Map<CborValue, CborValue>;
    const cose = (claims.get(8) as Map<CborValue, CborValue>).get(1) as Map<CborValue, CborValue>;
    expect(cose.get(1)).toBe(2);
    expect(cose.get(-1)).toBe(1);
    expect(Buffer.from(cose.get(-2) as Uint8Array).toString("base64url")).toBe(signer.publicKey.jwk.x);
    expect(Buffer.from(cose.get(-3) as Uint8Array).toString("base64url")).toBe(signer.publicKey.jwk.y);
    expect(decodeReceipt(receipt).carriedKey).toEqual(signer.publicKey.jwk);
  });

  it("counts only as the pinned key: a receipt carrying another is refused, though its signature is good", () => {
    const honest = buildReceipt({ ...base, key: signer.publicKey.jwk }, signer.privateKey);
    expect(verifyReceipt(honest, leaves[3] as Uint8Array, signer.publicKey).ok).toBe(true);
    // Signed by the pinned key, carrying another: the signature verifies, the carried key does not count.
    const lying = buildReceipt({ ...base, key: other.publicKey.jwk }, signer.privateKey);
    const verdict = verifyReceipt(lying, leaves[3] as Uint8Array, signer.publicKey);
    expect(verdict).toEqual({ ok: false, reason: expect.stringMatching(/cnf/) });
    // Signed by the key it carries, checked under the pinned one: refused for the key it carries.
    const selfSigned = buildReceipt({ ...base, key: other.publicKey.jwk }, other.privateKey);
    expect(verifyReceipt(selfSigned, leaves[3] as Uint8Array, signer.publicKey)).toEqual({
      ok: false,
      reason: expect.stringMatching(/cnf/),
    });
    // A receipt without cnf is judged by the pinned key alone, as before.
    expect(
      verifyReceipt(buildReceipt(base, signer.privateKey), leaves[3] as Uint8Array, signer.publicKey).ok,
    ).toBe(true);
  });

  it("holds for RFC 9162 receipts too", () => {
    const tree = Array.from({ length: 5 }, (_, i) => leafHash(new Uint8Array([i])));
    const nodes = new Map<string, Uint8Array>();
    for (const n of appendLeafHashes(0, tree, () => new Uint8Array()))
      nodes.set(`${n.level}:${n.idx}`, n.hash);
    const get = (l: number, i: number) => nodes.get(`${l}:${i}`) as Uint8Array;
    const input = {
      kid: "svc",
      issuer: "https://ts.example",
      subject: "tenant/x",
      treeSize: 5,
      leafIndex: 0,
      path: treeProof(0, 5, get),
      root: treeRoot(5, get),
    };
    const good = buildRfc9162Receipt({ ...input, key: signer.publicKey.jwk }, signer.privateKey);
    expect(verifyRfc9162Receipt(good, tree[0] as Uint8Array, signer.publicKey).ok).toBe(true);
    const lying = buildRfc9162Receipt({ ...input, key: other.publicKey.jwk }, signer.privateKey);
    expect(verifyRfc9162Receipt(lying, tree[0] as Uint8Array, signer.publicKey)).toEqual({
      ok: false,
      reason: expect.stringMatching(/cnf/),
    });
  });

  it('reads DataTrails\' own spellings (kty "EC", crv "P-384") and refuses a cnf that is no EC key', () => {
    const x = new Uint8Array(48).fill(1);
    const y = new Uint8Array(48).fill(2);
    const header = (key: CborValue) =>
      new Map<CborValue, CborValue>([
        [HEADER.cwtClaims, new Map<CborValue, CborValue>([[8, new Map([[1, key]])]])],
      ]);
    const dt = new Map<CborValue, CborValue>([
      [1, "EC"],
      [-1, "P-384"],
      [-2, x],
      [-3, y],
    ]);
    expect(carriedKeyOf(header(dt))).toMatchObject({ kty: "EC", crv: "P-384" });
    expect(() => carriedKeyOf(header(new Map<CborValue, CborValue>([[1, 1]])))).toThrow(/not an EC2 key/);
    expect(
      carriedKeyOf(new Map<CborValue, CborValue>([[HEADER.cwtClaims, new Map([[1, "iss"]])]])),
    ).toBeUndefined();
    expect(encodeCbor(dt).length).toBeGreaterThan(0);
  });
});
