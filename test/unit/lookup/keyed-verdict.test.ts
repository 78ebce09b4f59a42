import { describe, expect, it } from "vitest";
import { serviceKeysFor, statementVerdict } from "../../../src/lookup/keyed-verdict.js";
import { keyFingerprint } from "../../../src/verify/verdict/fingerprint.js";
import { emptyPolicy } from "../../../src/verify/verdict/policy.js";
import { vectorPublicKey } from "../../helpers/vector-key.js";
import { buildFixture } from "../formats/cose/fixture.js";

// The statement verdict the CLI and /verify share: judged by whose keys it was checked with, and a
// key nobody gave or a receipt given as a statement is nothing to judge, not a forgery.
const f = buildFixture();
const noRoots = { policy: emptyPolicy(), described: [] };

describe("statementVerdict (archivist verify and /verify)", () => {
  it("is self-consistent with the service's served keys, verified once the caller pins them", () => {
    const served = new Map([["test-key-1", vectorPublicKey]]);
    expect(statementVerdict(noRoots, serviceKeysFor(noRoots, served), f.attached, {})).toMatchObject({
      code: "self-consistent-unpinned",
      summary: expect.stringMatching(/statement by https:\/\/conserver\.example, 0 receipt\(s\) checked/),
    });
    const pinned = {
      policy: {
        ...emptyPolicy(),
        serviceKeys: [{ kid: "test-key-1", fingerprint: keyFingerprint(vectorPublicKey) }],
      },
      described: ["policy"],
    };
    expect(statementVerdict(pinned, serviceKeysFor(pinned, served), f.attached, {}).code).toBe("verified");
  });

  it("cannot evaluate a statement whose issuer key nobody gave, nor a receipt given as a statement", () => {
    const keys = serviceKeysFor(noRoots, new Map());
    expect(statementVerdict(noRoots, keys, f.attached, {})).toMatchObject({
      code: "cannot-evaluate",
      summary: expect.stringMatching(/issuer key \(kid test-key-1\) is neither/),
    });
    expect(
      statementVerdict(noRoots, keys, f.attached, { issuerKeys: new Map([["test-key-1", vectorPublicKey]]) })
        .code,
    ).toBe("self-consistent-unpinned");
    expect(statementVerdict(noRoots, keys, f.receipt, {})).toMatchObject({
      code: "cannot-evaluate",
      summary: expect.stringMatching(/a receipt alone proves nothing/),
    });
  });

  it("calls a changed statement tampered", () => {
    const changed = Uint8Array.from(f.attached);
    changed[changed.length - 1] = (changed[changed.length - 1] as number) ^ 1;
    const served = new Map([["test-key-1", vectorPublicKey]]);
    expect(statementVerdict(noRoots, serviceKeysFor(noRoots, served), changed, {}).code).toBe("tampered");
  });
});
