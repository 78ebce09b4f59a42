import { describe, expect, it } from "vitest";
import { compileReadableAssets, compileReadableEvents } from "../../../../src/core/access/sql.js";
import { Where } from "../../../../src/store/query/sql.js";
import { passingAny, publicOnly, restrictRows } from "../../../../src/store/records/access-sql.js";
import { member, permission, policy } from "../../core/access/fixtures.js";

// Known answers: the SQL the store compiles from a specification's access restriction; the
// policies' part is core's SQL twin, cross-checked against grantFor in core/access/sql.test.ts.
const T = "11111111-1111-1111-1111-111111111111";

describe("access restrictions, as a list's specification states them", () => {
  it("public and any-of restrictions", () => {
    const w = new Where();
    publicOnly(w);
    passingAny(w, []);
    passingAny(w, ["(a)", "(b)"]);
    expect(w.sql).toBe("(public) and (false) and ((a) or (b))");
  });

  const readable = policy(
    [{ or: ["attributes.kind=call"] }],
    permission({ user_attributes: [{ or: ["group:maintainers"] }], event_arc_display_type_read: ["x"] }),
  );
  const scopes = {
    kind: "scopes" as const,
    scopes: [{ tenantId: T }, { tenantId: "t2", policies: { policies: [readable], caller: member } }],
  };

  it("one tenancy, public assets, nothing more to restrict", () => {
    for (const table of ["assets", "asset_events"] as const) {
      const w = new Where();
      restrictRows(w, table, { kind: "tenancy", tenantId: T });
      restrictRows(w, table, { kind: "public" });
      restrictRows(w, table, { kind: "authorised" });
      expect([w.sql, w.params]).toEqual(["(tenant_id = $1) and (public)", [T]]);
    }
  });

  it("no scope lets nothing through", () => {
    const w = new Where();
    restrictRows(w, "assets", { kind: "scopes", scopes: [] });
    expect(w.sql).toBe("(false)");
  });

  it("assets: each scope's tenancy, whole or with its policies' SQL twin", () => {
    const w = new Where();
    restrictRows(w, "assets", scopes);
    const twin = compileReadableAssets([readable], member, "attributes", 3);
    expect(w.sql).toBe(`((tenant_id = $1) or (tenant_id = $2 and ${twin.sql}))`);
    expect(w.params).toEqual([T, "t2", ...twin.params]);
  });

  it("events: each scope's tenancy, whole or through the event's asset", () => {
    const w = new Where();
    restrictRows(w, "asset_events", scopes);
    const twin = compileReadableEvents(
      [readable],
      member,
      { assetAttributes: "a.attributes", eventAttributes: "asset_events.event_attributes" },
      3,
    );
    expect(w.sql).toBe(
      "((asset_events.tenant_id = $1) or (asset_events.tenant_id = $2 and exists (select 1 from assets a" +
        ` where a.id = asset_events.asset_id and ${twin.sql})))`,
    );
    expect(w.params).toEqual([T, "t2", ...twin.params]);
  });
});
