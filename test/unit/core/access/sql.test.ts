import { describe, expect, it } from "vitest";
import { grantFor } from "../../../../src/core/access/grant.js";
import { canReadEvent } from "../../../../src/core/access/project.js";
import { compileReadableAssets, compileReadableEvents } from "../../../../src/core/access/sql.js";
import type { AccessPolicy, Caller } from "../../../../src/core/access/types.js";
import { runSql } from "../../../helpers/mini-sql.js";
import { admin, app, external, member, nobody, permission, policy, SUBJECT_A } from "./fixtures.js";

const appOnly = { user_attributes: [{ or: ["subject=client-1"] }] };
const policies: AccessPolicy[] = [
  policy(
    [{ or: ["attributes.kind=call"] }],
    permission({ ...appOnly, event_arc_display_type_read: ["a", "b"] }),
  ),
  policy(
    [{ or: ["attributes.site=Leeds", "attributes.kind!=*"] }],
    permission({ ...appOnly, event_arc_display_type_read: ["c"] }),
  ),
  policy(
    [{ or: ["attributes.kind=chat"] }],
    permission({ user_attributes: [{ or: ["group:maintainers"] }], event_arc_display_type_read: ["*"] }),
  ),
  policy([{ or: ["attributes.site=York"] }], permission({ subjects: [SUBJECT_A] })),
  policy(
    [],
    permission({ user_attributes: [{ or: ["subject=client-9"] }], event_arc_display_type_read: ["*"] }),
  ),
];
const assets = [
  { kind: "call", site: "Leeds" },
  { kind: "call", site: "York" },
  { kind: "chat", site: "Leeds" },
  { kind: "chat", site: "York" },
  { site: "York" },
  {},
];
const events = [
  { arc_display_type: "a" },
  { arc_display_type: "c" },
  { arc_display_type: "z" },
  {},
  { arc_display_type: 1 },
];
const callers: Array<[string, Caller]> = [
  ["application", app],
  ["member", member],
  ["external", external],
  ["administrator", admin],
  ["nobody", nobody],
  ["catch-all application", { ...nobody, subject: "client-9" }],
];

describe("compileReadableAssets and compileReadableEvents agree with grantFor", () => {
  it.each(callers)("%s", (_n, caller) => {
    const a = compileReadableAssets(policies, caller, "a.attributes", 3);
    const e = compileReadableEvents(
      policies,
      caller,
      { assetAttributes: "a.attributes", eventAttributes: "e.event_attributes" },
      3,
    );
    let readable = 0;
    for (const attributes of assets) {
      const grant = grantFor(policies, caller, attributes);
      expect(runSql(a.sql, a.params, 3, { "a.attributes": attributes })).toBe(grant.read);
      for (const ev of events) {
        const row = { "a.attributes": attributes, "e.event_attributes": ev };
        expect(runSql(e.sql, e.params, 3, row)).toBe(canReadEvent(ev, grant));
        if (canReadEvent(ev, grant)) readable++;
      }
    }
    expect(readable).toBe(
      { application: 6, member: 10, external: 0, administrator: 30, nobody: 0, "catch-all application": 30 }[
        _n
      ],
    );
  });

  it("answers false when nothing applies and true for administrators", () => {
    expect(compileReadableAssets(policies, nobody, "a.attributes", 1)).toEqual({ sql: "false", params: [] });
    expect(compileReadableAssets(policies, admin, "a.attributes", 1)).toEqual({ sql: "true", params: [] });
  });

  it("keeps placeholders consecutive across policies", () => {
    const { sql, params } = compileReadableAssets(policies, app, "a.attributes", 5);
    expect(sql).toBe(
      "(((((a.attributes->>$5::text) = $6::text))) OR " +
        "((((a.attributes->>$7::text) = $8::text) OR (coalesce((a.attributes->>$9::text), '') = ''))))",
    );
    expect(params).toEqual(["kind", "call", "site", "Leeds", "kind"]);
  });
});
