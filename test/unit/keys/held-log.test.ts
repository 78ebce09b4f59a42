import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { leafCount } from "../../../src/formats/mmr/indices.js";
import { heldBehind, heldFork } from "../../../src/keys/held-log.js";
import { type SignedLogState, SignedStates } from "../../../src/keys/signed-state.js";

const TENANT = "0b7d3c4e-5f60-4718-8a9b-0c1d2e3f4a5b";

/** A signed state of `leaves` entries: the MMR of that many leaves and, unless told, its tree. */
function signedState(mmrSize: number, treeSize: number | undefined = leafCount(mmrSize)): SignedLogState {
  return {
    tenant_id: TENANT,
    mmr_size: mmrSize,
    peaks: [],
    ...(treeSize === undefined ? {} : { tree_size: treeSize, root: "00" }),
    signed_at: "2026-11-27T00:00:00.000Z",
  };
}

/** The leaves a reason names as missing, both ends included: "entries a to b" or "entry a". */
function namedInReason(reason: string): [number, number] {
  const range = /entries (\d+) to (\d+) were acknowledged and are missing/.exec(reason);
  if (range) return [Number(range[1]), Number(range[2])];
  const one = /entry (\d+) was acknowledged and is missing/.exec(reason);
  if (one) return [Number(one[1]), Number(one[1])];
  throw new Error(`the reason names no missing entries: ${reason}`);
}

describe("a held log's reason and its fields name the same missing leaves (#61)", () => {
  // MMR sizes of 7, 10 and 11 leaves: 11, 18 and 19.
  const cases: Array<{ name: string; s: SignedLogState; db: { mmr_size: number; tree_size: number } }> = [
    { name: "a restore of an older backup", s: signedState(18), db: { mmr_size: 11, tree_size: 7 } },
    { name: "one entry lost", s: signedState(19), db: { mmr_size: 18, tree_size: 10 } },
    {
      name: "a log whose tree was being backfilled",
      s: signedState(18, undefined),
      db: { mmr_size: 11, tree_size: 0 },
    },
    // The MMR holds every signed leaf, the tree does not: the tree's leaves are the ones missing.
    { name: "the tree behind, the MMR not", s: signedState(18), db: { mmr_size: 18, tree_size: 7 } },
  ];
  for (const c of cases)
    it(c.name, () => {
      const h = heldBehind(c.s, c.db);
      const [first, last] = namedInReason(h.reason);
      expect(first).toBeLessThanOrEqual(last);
      expect([h.first_missing, h.last_missing]).toEqual([first, last]);
      // The stored field is end-excluded, and the reason says so with the same numbers.
      expect(h.missing_leaves).toEqual([first, last + 1]);
      expect(h.reason).toContain(`missing_leaves [${first}, ${last + 1}), the end excluded`);
    });

  it("names the leaves a restore lost: from the database's size to the signed one", () => {
    const h = heldBehind(signedState(18), { mmr_size: 11, tree_size: 7 });
    expect(h.reason).toContain("the database holds 7 entries but this service signed 10");
    expect([h.first_missing, h.last_missing, h.missing_leaves]).toEqual([7, 9, [7, 10]]);
  });

  it("a fork names no missing leaves", () => {
    const h = heldFork(signedState(18), { mmr_size: 18, tree_size: 10 }, "it holds other entries");
    expect([h.kind, h.missing_leaves, h.first_missing, h.last_missing]).toEqual(["fork", null, null, null]);
  });
});

describe("the key directory's accepted log", () => {
  const dir = mkdtempSync(join(tmpdir(), "accepted-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads a line written before first_missing and last_missing were, deriving them", async () => {
    const states = new SignedStates(dir);
    const old = {
      tenant_id: TENANT,
      accepted_at: "2026-11-20T00:00:00.000Z",
      signed: signedState(18),
      database: { mmr_size: 11, tree_size: 7 },
      missing_leaves: [7, 10],
      reason: "log tenant/…: entries 7 to 9 were acknowledged and are missing",
      note: "",
    };
    writeFileSync(join(dir, "state", `${TENANT}.accepted.jsonl`), `${JSON.stringify(old)}\n`);
    const h = heldBehind(signedState(19), { mmr_size: 18, tree_size: 10 });
    await states.recordAcceptance({
      tenant_id: TENANT,
      accepted_at: "2026-11-27T00:00:00.000Z",
      signed: h.signed,
      database: h.database,
      missing_leaves: h.missing_leaves,
      first_missing: h.first_missing,
      last_missing: h.last_missing,
      reason: h.reason,
      note: "",
    });
    const read = await states.acceptances(TENANT);
    expect(read.map((a) => [a.missing_leaves, a.first_missing, a.last_missing])).toEqual([
      [[7, 10], 7, 9],
      [[10, 11], 10, 10],
    ]);
  });
});
