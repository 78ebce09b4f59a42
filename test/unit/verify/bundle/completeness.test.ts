import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { leafIndexOfMmrIndex } from "../../../../src/formats/mmr/index.js";
import { commitOf } from "../../../../src/formats/record/api-record.js";
import type { IndexLookup } from "../../../../src/formats/vindex/lookup-format.js";
import {
  type BundleReport,
  bundleConsentReport,
  type EvidenceBundle,
  emptyPolicy,
  noTrust,
  parseBundle,
  parsePolicy,
  type TrustRoots,
  verifyBundle,
  verifyLookup,
} from "../../../../src/verify/index.js";
import { bundledCheckpoint, carryForgerKey, forgedLookup, forgerKey } from "./forged-lookup.js";

// The completeness step of verifyBundle on a bundle a real service exported (a vCon of 21 records,
// a revocation among them, one asset-free event and one registered statement; made again by
// test/integration/vindex/complete-bundle.test.ts with WRITE_FIXTURES=1), and on the same bundle
// with its index lookup forged, cut or left out, or its statement altered or left out.
const text = readFileSync(
  new URL("../../../../fixtures/bundles/complete-vcon.json", import.meta.url),
  "utf8",
);
const fresh = (): EvidenceBundle => parseBundle(text);
const lookupOf = (b: EvidenceBundle) => b.index?.[0] as IndexLookup;
const carriedKey = (b: EvidenceBundle) => b.logs[0]?.checkpoints?.[0]?.key as string;
const policy = (lines: string): TrustRoots => ({ policy: parsePolicy(lines), described: ["a policy"] });
const codes = (r: BundleReport) => r.failures.map((f) => f.code);

const attributes = (r: Record<string, unknown>) =>
  (r.event_attributes ?? r.attributes) as Record<string, unknown> | undefined;
const REVOCATION = (b: EvidenceBundle) =>
  b.records.find(({ record }) => attributes(record)?.vcon_operation === "vcon_consent_revoked")
    ?.record as Record<string, unknown>;
const REVOCATION_ENTRY = (b: EvidenceBundle) => b.records.find(({ record }) => record === REVOCATION(b));
const entryOf = (r: Record<string, unknown>) => leafIndexOfMmrIndex(Number(commitOf(r)?.index));

describe("a bundle's completeness, from the index lookup it carries", () => {
  it("is complete as of the lookup's log entries under the bundle's own log key, and says it is not pinned", () => {
    const b = fresh();
    const r = verifyBundle(b);
    expect(r.code, r.problems.join("\n")).toBe("self-consistent-unpinned");
    const l = lookupOf(b);
    expect(r.completeness).toEqual({
      complete: true,
      key: b.subject.id,
      pinned: false,
      logs: [
        {
          log: l.log,
          log_size: l.revision.log_size,
          revision: l.revision.seq,
          entries: 21,
          log_key_pinned: false,
        },
      ],
      detail: `complete as of ${l.revision.log_size} log entries of ${l.log} (under the log key the bundle carries, not one you pinned)`,
    });
    expect(r.summary).toContain(r.completeness.detail);
    expect(r.not_checked.some((n) => n.includes("records may have been left out"))).toBe(false);
    expect(
      r.not_checked.some((n) => n.startsWith(`completeness past the first ${l.revision.log_size} entries`)),
    ).toBe(true);
  });

  it("is complete under the log key pinned, which also meets `require complete`", () => {
    const b = fresh();
    const r = verifyBundle(b, policy(`log ${carriedKey(b)}\nrequire complete\n`));
    expect(r.code, r.problems.join("\n")).toBe("verified");
    expect(r.completeness).toMatchObject({ complete: true, pinned: true });
    expect(r.completeness.logs[0]?.log_key_pinned).toBe(true);
  });

  it("without its lookup is not proven complete, says omissions go undetected, and fails `require complete`", () => {
    const b = fresh();
    delete b.index;
    const r = verifyBundle(b);
    expect(r.code).toBe("self-consistent-unpinned");
    expect(r.completeness).toEqual({
      complete: false,
      reason: "the bundle carries no index lookup",
      logs: [],
      detail: "not proven complete: the bundle carries no index lookup",
    });
    expect(r.not_checked[0]).toContain("records may have been left out");
    const required = verifyBundle(b, policy(`log ${carriedKey(b)}\nrequire complete\n`));
    expect(required.code).toBe("policy-failed");
    expect(required.failures).toEqual([
      {
        code: "NOT_PROVEN_COMPLETE",
        kind: "policy",
        detail: "require complete: the bundle is not proven complete: the bundle carries no index lookup",
      },
    ]);
  });

  it("is TAMPERED without a record the lookup lists, naming its log entry", () => {
    const b = fresh();
    const revocation = REVOCATION(b);
    b.records = b.records.filter(({ record }) => record !== revocation);
    const r = verifyBundle(b);
    const detail = `log entry ${entryOf(revocation)} of ${lookupOf(b).log} is filed under ${b.subject.id} and is not in the bundle`;
    expect(r.code).toBe("tampered");
    expect(r.failures).toEqual([{ code: "INDEX_ENTRY_OMITTED", kind: "tampered", detail }]);
    expect(r.completeness).toMatchObject({ complete: false, reason: detail });
    expect(r.exit_code).toBe(1);
  });

  it("refuses a lookup whose list was cut, or that is of another key or log", () => {
    const cut = fresh();
    lookupOf(cut).indices.pop();
    expect(codes(verifyBundle(cut))).toEqual(["INDEX_PROOF_INVALID"]);
    const other = fresh();
    lookupOf(other).key = `vcon://${crypto.randomUUID()}`;
    expect(codes(verifyBundle(other))).toEqual(["INDEX_OF_OTHER_SUBJECT"]);
    const elsewhere = fresh();
    lookupOf(elsewhere).log = `tenant/${crypto.randomUUID()}`;
    expect(codes(verifyBundle(elsewhere))).toEqual(["INDEX_OF_OTHER_LOG"]);
    for (const b of [cut, other, elsewhere]) expect(verifyBundle(b).completeness.complete).toBe(false);
  });

  it("lists a lookup of a version it does not know as not checked, and the bundle as not proven complete", () => {
    const b = fresh();
    (lookupOf(b) as unknown as { version: number }).version = 2;
    const r = verifyBundle(b);
    expect(r.code).toBe("self-consistent-unpinned");
    expect(r.completeness.complete).toBe(false);
    expect(r.not_checked.some((n) => n.includes("version 2 (unknown to this verifier)"))).toBe(true);
  });
});

describe("a registered statement's record in a complete bundle", () => {
  const STATEMENT = (b: EvidenceBundle) =>
    b.records.find((r) => r.statement !== undefined) as EvidenceBundle["records"][number];
  const identityOf = (b: EvidenceBundle) => String(STATEMENT(b).record.identity);

  it("verifies both its receipts, the RFC 9162 one with the statement it carries", () => {
    const b = fresh();
    const r = verifyBundle(b);
    const checked = r.records.find((c) => c.identity === identityOf(b));
    expect(checked?.ok).toBe(true);
    expect(checked?.receipts.map((c) => [c.profile, c.ok])).toEqual([
      ["mmr", true],
      ["rfc9162-statement", true],
    ]);
    expect(checked?.statement?.ok).toBe(true);
    expect(r.not_checked.some((n) => n.startsWith("the issuers' signatures of 1 registered statement"))).toBe(
      true,
    );
  });

  it("is TAMPERED without it, naming its log entry", () => {
    const b = fresh();
    const record = STATEMENT(b).record;
    b.records = b.records.filter((r) => r.record !== record);
    const detail = `log entry ${entryOf(record)} of ${lookupOf(b).log} is filed under ${b.subject.id} and is not in the bundle`;
    expect(verifyBundle(b).failures).toEqual([{ code: "INDEX_ENTRY_OMITTED", kind: "tampered", detail }]);
  });

  it("is TAMPERED with its statement altered, left out, or carried by another record", () => {
    const altered = fresh();
    const bytes = Buffer.from(STATEMENT(altered).statement as string, "base64");
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    STATEMENT(altered).statement = bytes.toString("base64");
    const a = verifyBundle(altered);
    expect(a.code).toBe("tampered");
    expect(codes(a)).toEqual(["STATEMENT_MISMATCH"]);
    expect(a.failures[0]?.detail).toContain("attributes.scitt_statement_sha256");
    const missing = fresh();
    delete STATEMENT(missing).statement;
    expect(codes(verifyBundle(missing))).toEqual(["STATEMENT_MISSING"]);
    // Its tree receipt left out too: the statement its record names is still missing.
    const bare = fresh();
    const entry = STATEMENT(bare);
    delete entry.statement;
    entry.receipts = entry.receipts.filter((x) => x.profile === "mmr");
    expect(codes(verifyBundle(bare))).toEqual(["STATEMENT_MISSING"]);
    const elsewhere = fresh();
    (REVOCATION_ENTRY(elsewhere) as { statement?: string }).statement = STATEMENT(elsewhere).statement;
    expect(codes(verifyBundle(elsewhere))).toEqual(["STATEMENT_MISMATCH"]);
  });

  it("fails its tree receipt filed as a record's own: its leaf is the payload's hash, not the record's", () => {
    const b = fresh();
    const tree = STATEMENT(b).receipts.find((x) => x.profile === "rfc9162-statement");
    if (tree) tree.profile = "rfc9162";
    expect(codes(verifyBundle(b))).toEqual(["RECEIPT_INVALID"]);
  });

  it("is refused by parseBundle when its statement is not a string", () => {
    const b = JSON.parse(text) as EvidenceBundle;
    (STATEMENT(b) as unknown as { statement: number }).statement = 7;
    expect(() => parseBundle(JSON.stringify(b))).toThrow(/its statement is not a base64 string/);
  });
});

describe("a forged index lookup", () => {
  /** The bundle without its revocation, carrying a forger's key and a lookup of the forger's that lists the rest. */
  function forged(edit: (indices: number[]) => number[] = (i) => i) {
    const b = fresh();
    const genuine = lookupOf(b);
    const cp = bundledCheckpoint(b);
    const forger = forgerKey(cp.origin);
    carryForgerKey(b, forger);
    const revocation = REVOCATION(b);
    b.records = b.records.filter(({ record }) => record !== revocation);
    const indices = edit(genuine.indices.filter((i) => i !== entryOf(revocation)));
    b.index = [forgedLookup(forger, cp.origin, { ...genuine, indices, logSize: cp.size, logRoot: cp.root })];
    return { b, genuineKey: carriedKey(fresh()) };
  }

  it("verifies under the key the bundle carries alone, and says so; pinning the log's key refuses it", () => {
    const { b, genuineKey } = forged();
    const unpinned = verifyBundle(b);
    expect(unpinned.code).toBe("self-consistent-unpinned");
    expect(unpinned.completeness).toMatchObject({ complete: true, pinned: false });
    expect(unpinned.summary).toContain("not one you pinned");
    const pinned = verifyBundle(b, policy(`log ${genuineKey}\n`));
    expect(pinned.code).toBe("policy-failed");
    expect(codes(pinned)).toContain("INDEX_NOT_PINNED");
    expect(pinned.completeness.complete).toBe(false);
    const required = verifyBundle(b, policy("require complete\n"));
    expect(required.code).toBe("policy-failed");
    expect(required.failures.map((f) => f.detail)).toEqual([
      "require complete: the bundle is proven complete only under the log key it carries, not one you pinned",
    ]);
  });

  it("that leaves out a record the bundle holds of its subject is TAMPERED naming the record", () => {
    const { b } = forged((indices) => indices.slice(1));
    const first = b.records.find(({ record }) => entryOf(record) === lookupOf(fresh()).indices[0])?.record;
    const r = verifyBundle(b);
    expect(codes(r)).toEqual(["INDEX_OMITS_RECORD"]);
    expect(r.failures[0]?.detail).toMatch(
      new RegExp(`^${String(first?.identity)} \\(log entry \\d+ of tenant/`),
    );
  });

  it("of a log the bundle's checkpoint does not extend is TAMPERED", () => {
    const b = fresh();
    const genuine = lookupOf(b);
    const cp = bundledCheckpoint(b);
    const forger = forgerKey(cp.origin);
    carryForgerKey(b, forger);
    // Its own log of one entry fewer, with a root no consistency proof in the bundle ties to the checkpoint.
    const indices = genuine.indices.filter((i) => i < cp.size - 1);
    b.index = [
      forgedLookup(forger, cp.origin, { ...genuine, indices, logSize: cp.size - 1, logRoot: cp.root }),
    ];
    const r = verifyBundle(b);
    expect(codes(r)).toEqual(["INDEX_PROOF_INVALID"]);
    expect(r.failures[0]?.detail).toContain(
      `is not consistent with the bundled checkpoint of ${cp.size} entries`,
    );
  });

  it("proving the key absent at an empty log verifies as absent: complete, no entries", () => {
    const b = fresh();
    const cp = bundledCheckpoint(b);
    const forger = forgerKey(cp.origin);
    carryForgerKey(b, forger);
    const empty = new Uint8Array(createHash("sha256").digest());
    const absent = forgedLookup(forger, cp.origin, {
      ...lookupOf(b),
      indices: [],
      logSize: 0,
      logRoot: empty,
    });
    expect(verifyLookup(absent, forger.vkey)).toMatchObject({
      ok: true,
      present: false,
      indices: [],
      logSize: 0,
    });
    b.index = [absent];
    const r = verifyBundle(b);
    expect(r.failures).toEqual([]);
    expect(r.completeness).toMatchObject({ complete: true, logs: [{ log_size: 0, entries: 0 }] });
  });
});

describe("the consent report of a bundle", () => {
  it("says it was made from a complete trail, or why not", () => {
    const b = fresh();
    const complete = bundleConsentReport(b, verifyBundle(b, policy(`log ${carriedKey(b)}\n`)));
    expect(complete.completeness).toEqual({
      complete: true,
      detail: `complete as of ${lookupOf(b).revision.log_size} log entries of ${lookupOf(b).log}`,
      logs: [{ log: lookupOf(b).log, log_size: lookupOf(b).revision.log_size }],
    });
    const broken = fresh();
    const receipt = broken.records[3]?.receipts[0];
    if (receipt) receipt.receipt = receipt.receipt.replace(/^../, "AA");
    const unread = bundleConsentReport(broken, verifyBundle(broken));
    expect(unread.completeness.complete).toBe(false);
    expect(unread.completeness.detail).toContain("1 of its record(s) did not verify and were not read");
    const bare = fresh();
    delete bare.index;
    expect(bundleConsentReport(bare, verifyBundle(bare)).completeness.complete).toBe(false);
    expect(bundleConsentReport(b, { records: verifyBundle(b).records }).completeness.detail).toBe(
      "not proven complete: no index lookup came with these records",
    );
  });

  it("reads `require complete` as a policy line and refuses any other requirement", () => {
    expect(parsePolicy("require complete\n").requireComplete).toBe(true);
    expect(emptyPolicy().requireComplete).toBeUndefined();
    expect(() => parsePolicy("require completeness\n")).toThrow(/require complete/);
    expect(() => parsePolicy("require\n")).toThrow(/require complete/);
    expect(verifyBundle(fresh(), noTrust()).completeness.complete).toBe(true);
  });
});

describe("parseBundle's index", () => {
  const refusal = (index: unknown) => {
    const b = JSON.parse(text) as Record<string, unknown>;
    b.index = index;
    try {
      parseBundle(JSON.stringify(b));
      return "accepted";
    } catch (err) {
      return (err as Error).message;
    }
  };

  it("refuses by name a lookup the completeness step could not read", () => {
    const l = JSON.parse(text).index[0] as Record<string, unknown>;
    const cases: Array<[unknown, RegExp]> = [
      [{}, /its index is not a list of lookups/],
      [[7], /its index is not a list of lookups/],
      [[{ ...l, key: 7 }], /index lookup 1 lacks its log or its key/],
      [[{ ...l, indices: [1, -2] }], /index lookup 1 lacks its list of log entries/],
      [[{ ...l, revision: "x" }], /index lookup 1 lacks its revision/],
      [[l, l], /the index holds two lookups of log tenant\//],
    ];
    for (const [index, why] of cases) expect(refusal(index)).toMatch(why);
    expect(refusal([l])).toBe("accepted");
    expect(refusal(undefined)).toBe("accepted");
  });
});
