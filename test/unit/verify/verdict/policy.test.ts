import { describe, expect, it } from "vitest";
import { formatCheckpoint } from "../../../../src/core/log/tlog-format.js";
import { COSIGNATURE_V1, ED25519 } from "../../../../src/formats/tlog/index.js";
import { judgeCheckpoint } from "../../../../src/verify/verdict/checkpoint.js";
import { PolicyError, parsePolicy, quorumMet } from "../../../../src/verify/verdict/policy.js";
import { signedNote, vkeyOf } from "../tlog/test-log.js";

const ORIGIN = "log.example/archivist/v1/merklelogs/6c5a8c0e-2d8f-4e7a-9b1c-0a1b2c3d4e5f/tlog";
const seed = (n: number) => new Uint8Array(32).fill(n);
const logVkey = vkeyOf(ORIGIN, ED25519, seed(1));
const witness = (n: number) => ({
  name: `w.example/${n}`,
  seed: seed(10 + n),
  vkey: vkeyOf(`w.example/${n}`, COSIGNATURE_V1, seed(10 + n)),
});
const [w1, w2, w3] = [witness(1), witness(2), witness(3)] as const;
const text = formatCheckpoint({ origin: ORIGIN, size: 6, root: new Uint8Array(32).fill(7), extensions: [] });
const cosigned = (...ws: Array<typeof w1>) => signedNote(text, ORIGIN, seed(1), ws);

const twoOfThree = `# C2SP tlog-policy, with the relying party's lines
log ${logVkey}
witness one ${w1.vkey}
witness two ${w2.vkey} https://w2.example/
witness three ${w3.vkey}
group w 2 one two three
quorum w
issuer https://archivist.example
min-receipts 2
max-age 2d
min-trust witnessed
`;

describe("trust policies (C2SP tlog-policy and the relying party's lines)", () => {
  it("reads a 2-of-3 witness group and the relying party's requirements", () => {
    const p = parsePolicy(twoOfThree);
    expect(p.logKeys).toEqual([logVkey]);
    expect([...p.witnesses.keys()]).toEqual(["one", "two", "three"]);
    expect(p).toMatchObject({
      issuers: ["https://archivist.example"],
      minReceipts: 2,
      maxAgeSeconds: 172800,
      minTrust: "witnessed",
    });
    expect(quorumMet(p.quorum, new Set(["one", "three"]))).toBe(true);
    expect(quorumMet(p.quorum, new Set(["two"]))).toBe(false);
  });

  it("nests groups, and reads all, any and none", () => {
    const p = parsePolicy(
      `witness a ${w1.vkey}\nwitness b ${w2.vkey}\nwitness c ${w3.vkey}\ngroup ab all a b\ngroup either any ab c\nquorum either\n`,
    );
    expect(quorumMet(p.quorum, new Set(["c"]))).toBe(true);
    expect(quorumMet(p.quorum, new Set(["a"]))).toBe(false);
    expect(quorumMet(p.quorum, new Set(["a", "b"]))).toBe(true);
    expect(parsePolicy("quorum none\n").quorum).toBe("none");
  });

  it.each([
    ["an unknown keyword", "frobnicate 1\n", /unknown keyword/],
    ["a name used before it is defined", `group g 1 x\n`, /not defined on a line before/],
    ["a threshold above the members", `witness a ${w1.vkey}\ngroup g 2 a\nquorum g\n`, /threshold/],
    ["a duplicate key", `witness a ${w1.vkey}\nwitness b ${w1.vkey}\nquorum a\n`, /duplicate key/],
    ["two quorum lines", "quorum none\nquorum none\n", /at most one quorum/],
    ["witnesses without a quorum", `witness a ${w1.vkey}\n`, /no quorum line/],
    ["a member listed twice", `witness a ${w1.vkey}\ngroup g 1 a a\nquorum g\n`, /twice/],
    ["a bad fingerprint", "service-key k1 sha256:abc\n", /service-key/],
    ["a bad vkey", "log nope\n", /vkey/],
  ])("refuses %s", (_what, policy, message) => {
    expect(() => parsePolicy(policy)).toThrow(PolicyError);
    expect(() => parsePolicy(policy)).toThrow(message);
  });

  it("judges a checkpoint: pinned by the log key, witnessed by the quorum, refused under another key", () => {
    const p = parsePolicy(twoOfThree);
    expect(judgeCheckpoint(cosigned(w1, w3), undefined, p)).toMatchObject({
      ok: true,
      pinned: true,
      witnessed: true,
      cosigners: ["one", "three"],
    });
    const one = judgeCheckpoint(cosigned(w2), undefined, p);
    expect(one).toMatchObject({
      ok: true,
      witnessed: false,
      policy: expect.stringMatching(/lacks the witness quorum \(cosigned by two/),
    });
    // Signed with another key under the same origin: self-consistent with its own key, not pinned.
    const forged = signedNote(text, ORIGIN, seed(9));
    const forgedKey = vkeyOf(ORIGIN, ED25519, seed(9));
    expect(judgeCheckpoint(forged, forgedKey, parsePolicy(""))).toMatchObject({ ok: true, pinned: false });
    expect(judgeCheckpoint(forged, forgedKey, p)).toMatchObject({
      ok: true,
      pinned: false,
      policy: expect.stringMatching(/not signed by a log key you pinned/),
    });
    // A changed checkpoint does not verify under the key it came with.
    const changed = forged.replace("\n6\n", "\n7\n");
    expect(judgeCheckpoint(changed, forgedKey, parsePolicy(""))).toMatchObject({ ok: false });
  });

  it("judges a quorum of 40 groups each naming every group before it, every group once (issue 55)", () => {
    const lines = [`witness w1 ${w1.vkey}`, "group g0 any w1"];
    for (let i = 1; i <= 40; i++)
      lines.push(`group g${i} all ${Array.from({ length: i }, (_, j) => `g${j}`).join(" ")}`);
    lines.push("quorum g40");
    const p = parsePolicy(lines.join("\n"));
    expect(quorumMet(p.quorum, new Set(["w1"]))).toBe(true);
    expect(quorumMet(p.quorum, new Set())).toBe(false);
  });

  it("reads two logs of one service: one key, two origins (issue 55)", () => {
    const other = vkeyOf(ORIGIN.replace("6c5a8c0e", "7d6b9d1f"), ED25519, seed(1));
    expect(parsePolicy(`log ${logVkey}\nlog ${other}`).logKeys).toHaveLength(2);
    expect(() => parsePolicy(`log ${logVkey}\nlog ${logVkey}`)).toThrow(/duplicate key/);
  });
});
