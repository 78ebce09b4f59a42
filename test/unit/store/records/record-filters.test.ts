import { describe, expect, it } from "vitest";
import type { AttributeFilter } from "../../../../src/core/filters/index.js";
import { parseODataFilter } from "../../../../src/core/odata/index.js";
import { Where } from "../../../../src/store/query/sql.js";
import { tenancyOnly } from "../../../../src/store/records/access-sql.js";
import { EVENT_STATUS_SQL } from "../../../../src/store/records/asset-events.js";
import { ASSET_STATUS_SQL } from "../../../../src/store/records/assets.js";
import { addHiddenAwareFilter } from "../../../../src/store/records/attribute-sql.js";
import {
  freeEventsOfTenancy,
  matchingODataFilter,
  withAnyTrail,
} from "../../../../src/store/records/free-events.js";
import {
  filterLocations,
  homesOfAssets,
  locationsOfTenancy,
  locationWhere,
  locationWithId,
  noLocations,
} from "../../../../src/store/records/locations.js";
import { filterAssetEvents, filterAssets, ofAsset } from "../../../../src/store/records/record-filters.js";

// Known answers: the statements the services wrote before the store took them over.
const T = "11111111-1111-1111-1111-111111111111";

describe("record list filters", () => {
  it("asset filters, in the list's order", () => {
    const w = new Where();
    tenancyOnly(w, T);
    filterAssets(w, { proofMechanism: "MERKLE_LOG", tracked: "TRACKED", statuses: ["PENDING", "STORED"] });
    expect(w.sql).toBe(
      `(tenant_id = $1) and (proof_mechanism = $2) and (tracked = $3) and (${ASSET_STATUS_SQL} = any($4::text[]))`,
    );
    expect(w.params).toEqual([T, "MERKLE_LOG", "TRACKED", ["PENDING", "STORED"]]);
  });

  it("asset filters left out add nothing", () => {
    const w = new Where();
    filterAssets(w, { proofMechanism: undefined, tracked: undefined, statuses: [] });
    expect(w.sql).toBe("true");
    expect(w.params).toEqual([]);
  });

  it("event filters, in the list's order", () => {
    const since = new Date("2024-01-01T00:00:00Z");
    const before = new Date("2025-01-01T00:00:00Z");
    const w = new Where();
    ofAsset(w, "a1");
    filterAssetEvents(w, {
      statuses: ["COMMITTED"],
      trusted: ["CONFIRMED", "UNEQUIVOCAL"],
      proofMechanism: "SIMPLE_HASH",
      since,
      before,
    });
    expect(w.sql).toBe(
      `(asset_id = $1) and (${EVENT_STATUS_SQL} = any($2::text[])) and (${EVENT_STATUS_SQL} = any($3::text[]))` +
        " and (proof_mechanism = $4) and (timestamp_accepted >= $5) and (timestamp_accepted < $6)",
    );
    expect(w.params).toEqual([
      "a1",
      ["COMMITTED"],
      ["CONFIRMED", "UNEQUIVOCAL"],
      "SIMPLE_HASH",
      since,
      before,
    ]);
  });

  it("a hidden-aware attribute filter reads the name as missing in the hidden tenancies", () => {
    const f: AttributeFilter = {
      kind: "match",
      prefix: "attributes",
      name: "kind",
      values: ["call"],
      present: false,
    };
    const w = new Where();
    tenancyOnly(w, T);
    addHiddenAwareFilter(w, f, "attributes", true, ["t2"], "tenant_id");
    expect(w.sql).toBe(
      "(tenant_id = $1) and ((tenant_id <> all($2::uuid[]) and (attributes @> $3::jsonb))" +
        " or (tenant_id = any($2::uuid[]) and (jsonb_contains((attributes - $4::text), $5::jsonb))))",
    );
    expect(w.params).toEqual([T, ["t2"], '{"kind":"call"}', "kind", '{"kind":"call"}']);
  });
});

describe("location filters", () => {
  it("a location list's specification: the homes of the assets its restriction lets through", () => {
    const w = locationWhere({
      tenantId: T,
      access: { kind: "homes", assets: { kind: "tenancy", tenantId: "t2" } },
      id: "l1",
      displayNames: ["a"],
      filters: [{ kind: "missing", prefix: "attributes", name: "k" }],
    });
    expect(w.sql).toBe(
      "(tenant_id = $1) and (exists (select 1 from assets where (tenant_id = $2) and" +
        " assets.attributes->>'arc_home_location_identity' = 'locations/' || locations.id::text))" +
        " and (id = $3) and (display_name = any($4::text[])) and (coalesce(attributes->>$5, '') = '')",
    );
    expect(w.params).toEqual([T, "t2", "l1", ["a"], "k"]);
    expect(locationWhere({ tenantId: T, access: { kind: "none" }, filters: [] }).sql).toBe(
      "(tenant_id = $1) and (false)",
    );
    expect(locationWhere({ tenantId: T, access: { kind: "all" }, filters: [] }).sql).toBe("(tenant_id = $1)");
  });

  it("the homes of readable assets, one id, names and descriptions", () => {
    const w = new Where();
    locationsOfTenancy(w, T);
    homesOfAssets(w, (assets) => tenancyOnly(assets, "t2"));
    locationWithId(w, "l1");
    filterLocations(w, { displayNames: ["a", "b"], descriptions: ["d"] });
    expect(w.sql).toBe(
      "(tenant_id = $1) and (exists (select 1 from assets where (tenant_id = $2) and" +
        " assets.attributes->>'arc_home_location_identity' = 'locations/' || locations.id::text))" +
        " and (id = $3) and (display_name = any($4::text[])) and (description = any($5::text[]))",
    );
    expect(w.params).toEqual([T, "t2", "l1", ["a", "b"], ["d"]]);
  });

  it("none at all", () => {
    const w = new Where();
    noLocations(w);
    filterLocations(w, { displayNames: [], descriptions: [] });
    expect(w.sql).toBe("(false)");
  });
});

describe("asset-free event search", () => {
  it("one tenancy's events, an OData filter over their columns, the trails probe", () => {
    const w = freeEventsOfTenancy(T);
    matchingODataFilter(w, parseODataFilter("origin_tenant eq 'tenant/abc' and ledger_entry/index gt 3"));
    expect(w.sql).toBe(
      "(tenant_id = $1) and (((('tenant/' || tenant_id::text) = $2::text) AND (mmr_index > $3::bigint)))",
    );
    expect(w.params).toEqual([T, "tenant/abc", "3"]);
    const probe = withAnyTrail(["x"]);
    expect([probe.sql, probe.params]).toEqual(["(trails && $1::text[])", [["x"]]]);
  });
});
