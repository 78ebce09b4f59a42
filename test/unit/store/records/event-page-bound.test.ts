import { describe, expect, it } from "vitest";
import { selectAssetEvents } from "../../../../src/store/records/asset-events.js";
import { recordingDb as recording } from "../../../helpers/recording-db.js";

const ASSET = "00000000-0000-4000-8000-000000000001";

describe("a page of one asset's events: its cursor is an index bound", () => {
  it("bounds the first page newest first above every seq, so a kept plan seeks on (asset_id, seq)", async () => {
    const { db, seen } = recording();
    await selectAssetEvents(db, "asset_id = $1", [ASSET], {
      cursor: 0,
      limit: 11,
      ascending: false,
      reusePlan: true,
    });
    const [s] = seen;
    expect(s?.sql).toContain("asset_id = $1 and seq < $2 order by seq desc limit $3");
    // `($2 = 0 or seq < $2)`, which a generic plan can only filter on, is gone.
    expect(s?.sql).not.toMatch(/= 0 or/);
    expect(s?.params).toEqual([ASSET, Number.MAX_SAFE_INTEGER, 11]);
    expect(s?.opts).toEqual({ reusePlan: true });
  });

  it("takes a later page's cursor as the bound, and oldest first from the cursor up", async () => {
    const { db, seen } = recording();
    const kept = { limit: 51, reusePlan: true };
    await selectAssetEvents(db, "asset_id = $1", [ASSET], { ...kept, cursor: 500, ascending: false });
    await selectAssetEvents(db, "asset_id = $1", [ASSET], { ...kept, cursor: 0, ascending: true });
    expect(seen[0]?.sql).toContain("seq < $2 order by seq desc");
    expect(seen[0]?.params).toEqual([ASSET, 500, 51]);
    expect(seen[1]?.sql).toContain("seq > $2 order by seq asc limit $3");
    expect(seen[1]?.params).toEqual([ASSET, 0, 51]);
  });

  it("leaves a statement planned for its values as it was: its planner folds the first page's test away", async () => {
    const { db, seen } = recording();
    await selectAssetEvents(db, "tenant_id = $1", [ASSET], { cursor: 0, limit: 51, ascending: false });
    expect(seen[0]?.sql).toContain("($2::bigint = 0 or seq < $2) order by seq desc");
    expect(seen[0]?.params).toEqual([ASSET, 0, 51]);
    expect(seen[0]?.opts).toEqual({ reusePlan: false });
  });
});
