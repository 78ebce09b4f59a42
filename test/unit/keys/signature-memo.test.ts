import { describe, expect, it } from "vitest";
import type { Signer } from "../../../src/core/log/sign1.js";
import { SignatureMemo, signedOnce } from "../../../src/keys/signature-memo.js";

// A message "built" as its Sig_structure followed by the signature it was given.
const message = (tbs: Uint8Array) => (signer: Signer) => {
  const sig = signer(tbs);
  return Uint8Array.from([...tbs, ...sig]);
};

function countingKey(x: string, sync: boolean) {
  const signed: string[] = [];
  const sign = (tbs: Uint8Array) => {
    signed.push(Buffer.from(tbs).toString("hex"));
    // A signature of its own each time, as ECDSA's is: a reused one shows as the same bytes.
    return Uint8Array.from([signed.length, ...tbs.slice(0, 3)]);
  };
  return {
    signed,
    key: {
      kid: "k1",
      alg: "ES256",
      publicJwk: { x, y: "y" },
      signSync: sync ? sign : undefined,
      sign: async (tbs: Uint8Array) => sign(tbs),
    },
  };
}

describe("signedOnce", () => {
  for (const sync of [true, false])
    it(`signs each Sig_structure once per key, ${sync ? "synchronously" : "through an asynchronous backend"}`, async () => {
      const memo = new SignatureMemo();
      const a = countingKey("x-a", sync);
      const peak = Uint8Array.of(1, 2, 3, 4);
      const first = await signedOnce(memo, a.key, message(peak));
      const again = await signedOnce(memo, a.key, message(peak));
      expect(again).toEqual(first);
      expect(a.signed).toHaveLength(1);
      // Another peak is signed anew.
      const other = await signedOnce(memo, a.key, message(Uint8Array.of(9, 9, 9)));
      expect(other).not.toEqual(first);
      expect(a.signed).toHaveLength(2);
      // Another key of the same kid never takes the first key's signature.
      const b = countingKey("x-b", sync);
      await signedOnce(memo, b.key, message(peak));
      expect(b.signed).toHaveLength(1);
    });
});
