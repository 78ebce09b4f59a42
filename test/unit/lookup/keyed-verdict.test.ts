import { describe, expect, it } from "vitest";
import { formatIdTimestamp } from "../../../src/core/log/idtimestamp.js";
import { assetFreeEventLeafHash, assetFreeExtraBytes } from "../../../src/formats/record/index.js";
import { recordReceiptVerdict, serviceKeysFor, statementVerdict } from "../../../src/lookup/keyed-verdict.js";
import { keyFingerprint } from "../../../src/verify/verdict/fingerprint.js";
import { emptyPolicy } from "../../../src/verify/verdict/policy.js";
import { vectorPublicKey } from "../../helpers/vector-key.js";
import { buildFixture, receiptInLog } from "../formats/cose/fixture.js";

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

// Issue 74: a wrong file given as `--receipt` was called TAMPERED (exit 1). A file that is no
// receipt says nothing against the record: cannot evaluate (4), as the README says.
describe("recordReceiptVerdict: a file that is no receipt cannot be judged", () => {
  const tenant = "6a009b40-eb55-4159-81f0-69024f89f53c";
  const idtimestamp = 0x8fa97ef269039b00n;
  const event = {
    identity: "events/0194b168-bac0-75e6-bbc4-a47cc45bdbf5",
    attributes: { subject: "vcon://x" },
    trails: ["vcon://x"],
    event_type: "vcon_created",
    origin_tenant: `tenant/${tenant}`,
  };
  const leaf = assetFreeEventLeafHash(event, idtimestamp, assetFreeExtraBytes(tenant), "eventsv1");
  const { mmrIndex, receipt } = receiptInLog([new Uint8Array(32).fill(1), leaf], 1, { tenant, idtimestamp });
  const record = {
    ...event,
    merklelog_commit: { index: String(mmrIndex), idtimestamp: formatIdTimestamp(idtimestamp) },
  };
  const keys = serviceKeysFor(noRoots, new Map([["svc", vectorPublicKey]]));
  const judged = (r: Uint8Array) => recordReceiptVerdict(noRoots, keys, record, r);

  it.each([
    ["the record's own JSON", new TextEncoder().encode(JSON.stringify(record)), /not a COSE_Sign1/],
    ["a signed statement", f.attached, /without a verifiable data structure/],
    ["an empty file", new Uint8Array(), /not a COSE_Sign1/],
  ])("%s as the receipt: cannot-evaluate", (_, wrong, why) => {
    expect(judged(wrong)).toMatchObject({ code: "cannot-evaluate", summary: expect.stringMatching(why) });
  });

  it("a receipt whose signature fails is still tampered", () => {
    expect(judged(receipt).code).toBe("self-consistent-unpinned");
    const changed = Uint8Array.from(receipt);
    changed[changed.length - 1] = (changed[changed.length - 1] as number) ^ 1;
    expect(judged(changed).code).toBe("tampered");
  });

  it("a wrong file beside a statement is not judged either", () => {
    const served = serviceKeysFor(noRoots, new Map([["test-key-1", vectorPublicKey]]));
    expect(statementVerdict(noRoots, served, f.attached, { receipts: [f.attached] })).toMatchObject({
      code: "cannot-evaluate",
      summary: expect.stringMatching(/without a verifiable data structure/),
    });
  });
});
