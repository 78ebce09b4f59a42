import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/errors/api-error.js";
import type { IndexLookup } from "../../../src/formats/vindex/lookup-format.js";
import { answerGathering } from "../../../src/http/caller-evidence.js";
import { buildBundle } from "../../../src/lookup/evidence/bundle-build.js";
import type { EvidenceSource } from "../../../src/lookup/evidence/source.js";
import { LookupError, type PublicRecord } from "../../../src/lookup/public-api.js";

// The gathering decides what a refused read means, whichever source made it (over fetch or
// in-process): a lookup or a checkpoint the caller may not have leaves the bundle without it,
// going over the rate limit fails the bundle, and the routes answer a refusal as a list would.

const ASSET = "0190aaaa-0000-7000-8000-000000000001";
const refused = (status: number) => () => Promise.reject(new LookupError(`answered ${status}`, status));

/** A source of one asset with one event not yet committed (no receipt, so no log to prove). */
function source(overrides: Partial<EvidenceSource> = {}): EvidenceSource {
  const event: PublicRecord = { identity: `assets/${ASSET}/events/0190aaaa-0000-7000-8000-000000000002` };
  const none = () => Promise.reject(new Error("not read for a trail without receipts"));
  return {
    base: "https://archivist.example",
    asset: async () => ({ identity: `assets/${ASSET}` }),
    assetEvents: async () => [event],
    subjectEvents: async () => [],
    subjectStatements: async () => [],
    freeEvent: none,
    statement: none,
    receipt: async () => undefined,
    receipts: async () => new Map(),
    sealSizes: none,
    seal: none,
    consistency: none,
    treeConsistency: none,
    keySet: async () => new Uint8Array([0xa0]),
    checkpoint: none,
    indexLookup: refused(404),
    ...overrides,
  };
}

describe("gathering an evidence bundle from a source", () => {
  it("goes on without the index lookup when the caller may not have it, and fails over the rate limit", async () => {
    const subject = { kind: "asset", uuid: ASSET } as const;
    for (const status of [404, 503]) {
      const bundle = await buildBundle(source({ indexLookup: refused(status) }), subject);
      expect(bundle.records.map((r) => r.receipts)).toEqual([[]]);
      expect(bundle.index).toBeUndefined();
    }
    // A lookup that could not be made at all is none to carry either.
    const unreachable = () => Promise.reject(new LookupError("fetch failed")) as Promise<IndexLookup>;
    expect((await buildBundle(source({ indexLookup: unreachable }), subject)).index).toBeUndefined();
    await expect(buildBundle(source({ indexLookup: refused(429) }), subject)).rejects.toMatchObject({
      status: 429,
    });
  });

  it("refuses a subject of which the caller may read nothing, and passes on a refused read", async () => {
    await expect(
      buildBundle(source({ assetEvents: async () => [] }), { kind: "asset", uuid: ASSET }),
    ).rejects.toThrow(`assets/${ASSET} has no records you may read`);
    await expect(
      buildBundle(source({ asset: refused(404) }), { kind: "asset", uuid: ASSET }),
    ).rejects.toMatchObject({ status: 404 });
  });
});

describe("a gathering route's answer to a refused read", () => {
  it("is 429 over the rate limit, 503 for a read the service could not answer, 404 for anything else the caller could not read, and a fault as it is", async () => {
    const answer = (err: unknown) => answerGathering("gathering", () => Promise.reject(err));
    await expect(answer(new LookupError("GET x: limit", 429))).rejects.toMatchObject({
      kind: "rate_limited",
      message: "gathering went over the rate limit: GET x: limit",
    });
    for (const err of [new LookupError("asset not found", 404), new LookupError("too many pages")])
      await expect(answer(err)).rejects.toMatchObject({ kind: "not_found", message: err.message });
    await expect(answer(new LookupError("the receipt: a node is missing", 503))).rejects.toMatchObject({
      kind: "unavailable",
      message: "gathering: the receipt: a node is missing",
    });
    const fault = new ApiError("unavailable", "a node is missing");
    await expect(answer(fault)).rejects.toBe(fault);
  });
});
