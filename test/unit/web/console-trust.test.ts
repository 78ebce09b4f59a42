import { describe, expect, it } from "vitest";
import { ed25519PublicKey, formatVkey } from "../../../src/core/log/note-sign.js";
import { COSIGNATURE_V1, ED25519 } from "../../../src/formats/tlog/index.js";
import { PolicyError } from "../../../src/verify/index.js";
import { pinsSomething } from "../../../src/verify/verdict/trust.js";
import { consoleTrustRoots, type TrustInput, trustSummary } from "../../../src/web/console-trust.js";

const seed = (b: number) => new Uint8Array(32).fill(b);
const LOG = formatVkey("example.com/log", ED25519, ed25519PublicKey(seed(1)));
const W1 = formatVkey("w1.example", COSIGNATURE_V1, ed25519PublicKey(seed(2)));
const W2 = formatVkey("w2.example", COSIGNATURE_V1, ed25519PublicKey(seed(3)));
const PRINT = `sha256:${"ab".repeat(32)}`;
const none: TrustInput = { policy: "", logKey: "", witnesses: "", quorum: "", fingerprints: "" };

describe("the console's trust roots", () => {
  it("gives no roots for empty fields: verdicts stay self-consistent at best", () => {
    const roots = consoleTrustRoots(none);
    expect(pinsSomething(roots)).toBe(false);
    expect(trustSummary(roots)).toMatch(/^No trust roots given/);
  });

  it("takes the fingerprints as the console shows them, the log key, and the witnesses with their quorum", () => {
    const roots = consoleTrustRoots({
      ...none,
      fingerprints: `kid-1: ${PRINT}\n# a comment\nkid-2 ${PRINT.toUpperCase().replace("SHA256", "sha256")}`,
      logKey: LOG,
      witnesses: `${W1}\n${W2}\n`,
      quorum: "1",
    });
    expect(roots.policy.serviceKeys).toEqual([
      { kid: "kid-1", fingerprint: PRINT },
      { kid: "kid-2", fingerprint: PRINT },
    ]);
    expect(roots.policy.logKeys).toEqual([LOG]);
    expect([...roots.policy.witnesses.values()]).toEqual([W1, W2]);
    expect(roots.policy.quorum).toMatchObject({ k: 1 });
    expect(trustSummary(roots)).toBe(
      "Every verdict here is judged by your roots: 2 service key fingerprint(s), the log key given here, 1 of 2 witness(es).",
    );
  });

  it("reads a policy file with the verifier's own parser", () => {
    const roots = consoleTrustRoots({
      ...none,
      policy: `log ${LOG}\nwitness w1 ${W1}\nquorum w1\nmin-receipts 1\n`,
    });
    expect(roots.policy.logKeys).toEqual([LOG]);
    expect(roots.policy.witnesses.get("w1")).toBe(W1);
    expect(roots.described).toEqual(["the policy given here"]);
  });

  it.each([
    [{ fingerprints: "kid-1 md5:abc" }, /key fingerprint 1/],
    [{ logKey: "not a vkey" }, /the log key/],
    [{ logKey: `${LOG}\n${LOG}` }, /one vkey line/],
    [{ witnesses: W1, quorum: "2" }, /quorum is a whole number from 1 to 1/],
    [{ quorum: "1" }, /give their keys/],
    [{ witnesses: "nonsense" }, /witness 1/],
    [{ policy: "trust everything" }, /.+/],
  ])("refuses %o whole, naming why", (fields, why) => {
    expect(() => consoleTrustRoots({ ...none, ...fields })).toThrow(PolicyError);
    expect(() => consoleTrustRoots({ ...none, ...fields })).toThrow(why);
  });
});
