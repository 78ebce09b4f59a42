import { describe, expect, it } from "vitest";
import type { PublicRecord } from "../../../src/lookup/public-api.js";
import { heldReceipts, type Trail, type TrailStep, unjudged } from "../../../src/web/console-trail.js";
import { recordFacts } from "../../../src/web/record-facts.js";

const A = "assets/11111111-1111-4111-8111-111111111111/events/22222222-2222-4222-8222-222222222222";
const P = "publicassets/33333333-3333-4333-8333-333333333333/events/44444444-4444-4444-8444-444444444444";
const F = "events/55555555-5555-4555-8555-555555555555";

const step = (identity: string, receipt: TrailStep["receipt"]): TrailStep => {
  const record = { identity } as PublicRecord;
  return { record, facts: recordFacts(record), receipt, pending: false };
};

const verified = (b: number): TrailStep["receipt"] => ({
  ok: true,
  code: "verified",
  mmrIndex: 0,
  profiles: ["mmr", "rfc9162"],
  receipts: { mmr: Uint8Array.of(b), rfc9162: Uint8Array.of(b + 1) },
});

const trail = (steps: TrailStep[]): Trail => ({
  target: { kind: "vcon", uuid: "x" },
  title: "vcon://x",
  assets: [],
  steps,
  compliance: [],
  assetCounts: [],
});

describe("a trail judged again under other roots", () => {
  it("keeps the receipts its checks read, by the receipt route's name, and nothing of a failed check", () => {
    const t = trail([
      step(A, verified(1)),
      step(P, verified(3)),
      step(F, { ok: false, code: "policy-failed", reason: "not pinned" }),
    ]);
    expect(heldReceipts(t)).toEqual({
      [A]: { mmr: Uint8Array.of(1), rfc9162: Uint8Array.of(2) },
      [P.replace("publicassets/", "assets/")]: { mmr: Uint8Array.of(3), rfc9162: Uint8Array.of(4) },
    });
  });

  it("shows every record unchecked again, its records and order kept, the trail judged before left as it was", () => {
    const t = trail([step(A, verified(1)), step(F, verified(5))]);
    const again = unjudged(t);
    expect(again.steps.map((x) => x.record)).toEqual(t.steps.map((x) => x.record));
    for (const x of again.steps) {
      expect(x.pending).toBe(true);
      expect(x.receipt.ok).toBe(false);
      expect(x.receipt.code).toBe("cannot-evaluate");
    }
    expect(t.steps.every((x) => !x.pending && x.receipt.ok)).toBe(true);
  });
});
