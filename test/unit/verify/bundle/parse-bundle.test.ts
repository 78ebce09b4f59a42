import { describe, expect, it } from "vitest";
import { BUNDLE_FORMAT, BUNDLE_VERSION } from "../../../../src/formats/bundle/format.js";
import { BundleError, parseBundle } from "../../../../src/verify/bundle/index.js";

const base = {
  format: BUNDLE_FORMAT,
  version: BUNDLE_VERSION,
  created_at: "2026-01-01T00:00:00Z",
  service: "http://service.example",
  subject: { kind: "vcon", id: "vcons/x" },
  assets: [],
  records: [],
  logs: [],
  keys: { cose_key_set: "" },
};

const refusal = (b: unknown) => {
  try {
    parseBundle(JSON.stringify(b));
  } catch (err) {
    return err instanceof BundleError ? err.message : `not a BundleError: ${String(err)}`;
  }
  return "accepted";
};

describe("parseBundle", () => {
  it("reads a well-formed bundle, logs of unknown profiles unread", () => {
    const b = { ...base, logs: [{ log: "tenant/t", profile: "future" }] };
    expect(parseBundle(JSON.stringify(b)).logs).toHaveLength(1);
  });

  it("refuses by name the parts the checks would otherwise trip over", () => {
    const log = { log: "tenant/t", profile: "mmr", seals: [], consistency: [] };
    const cases: Array<[unknown, RegExp]> = [
      [{ ...base, subject: null }, /no subject/],
      [{ ...base, records: [null] }, /record 1 lacks/],
      [{ ...base, records: [{ record: {}, receipts: "x" }] }, /record 1 lacks/],
      [{ ...base, records: [{ record: {}, receipts: [], statement: 7 }] }, /record 1: its statement is not/],
      [
        { ...base, records: [{ record: {}, receipts: [], statement_unavailable: { why: "lost" } }] },
        /record 1: why its statement is unavailable is not a string/,
      ],
      [{ ...base, logs: [7] }, /log 1 lacks its name/],
      [{ ...base, logs: [{ ...log, seals: undefined }] }, /lacks its seals/],
      [{ ...base, logs: [{ ...log, consistency: [null] }] }, /lacks its seals or consistency/],
      [
        { ...base, logs: [{ ...log, checkpoints: [{ note: "", key: "", consistency: [{ proof: 1 }] }] }] },
        /checkpoints are malformed/,
      ],
    ];
    for (const [b, why] of cases) expect(refusal(b)).toMatch(why);
  });
});
