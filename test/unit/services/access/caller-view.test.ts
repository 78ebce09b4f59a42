import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Ctx, Principal } from "../../../../src/context.js";
import { writeViewFor } from "../../../../src/services/access/caller-view.js";
import type { AccessPolicyRow } from "../../../../src/store/identity/access-policies.js";

const tenantId = randomUUID();

const pipeline: Principal = {
  tenantId,
  kind: "application",
  id: "pipeline",
  issuer: "https://archivist.example/appidp",
  subject: "pipeline",
  displayName: "pipeline",
  email: "",
  claims: {},
  roles: [],
  isAdmin: false,
};

function row(behaviours: string[]): AccessPolicyRow {
  return {
    seq: 1,
    id: randomUUID(),
    tenant_id: tenantId,
    display_name: "pipeline writes vCons",
    description: "",
    filters: [{ or: ["attributes.arc_display_type=vcon"] }],
    access_permissions: [
      { behaviours, asset_attributes_read: ["*"], user_attributes: [{ or: ["subject=pipeline"] }] },
    ],
  };
}

/** A context whose policy cache hands out `current()`, as the brief cache does: one array while it is fresh. */
function contextServing(current: () => readonly AccessPolicyRow[]) {
  const cache = { get: async () => current(), peek: () => current(), forget: () => undefined };
  const caches = { accessPolicies: cache, checkedPolicies: new WeakMap() };
  return { db: {}, caches } as unknown as Pick<Ctx, "caches" | "db">;
}

/** The checked policies a write view holds for its caller's tenancy. */
function policiesIn(view: Awaited<ReturnType<typeof writeViewFor>>) {
  if (view.restriction.kind !== "scopes") throw new Error("not a policy view");
  return view.restriction.scopes[0]?.policies?.policies;
}

const asset = { tenant_id: tenantId, attributes: { arc_display_type: "vcon" } };

/** The behaviours the view grants its caller on a vCon asset of its tenancy. */
function behavioursOf(view: Awaited<ReturnType<typeof writeViewFor>>) {
  const b = view.grant(asset as never)?.behaviours;
  return b === undefined || b === "*" ? b : [...b];
}

describe("the write view's policies", () => {
  it("are checked once per array of rows the cache hands out, and again when it hands out another", async () => {
    let rows: readonly AccessPolicyRow[] = [row(["RecordEvidence"])];
    const ctx = contextServing(() => rows);
    const first = await writeViewFor(ctx, pipeline);
    const second = await writeViewFor(ctx, pipeline);
    expect(policiesIn(first)).toHaveLength(1);
    // The same checked policies, not a second check of the same rows.
    expect(policiesIn(second)).toBe(policiesIn(first));
    expect(behavioursOf(first)).toEqual(["RecordEvidence"]);

    // A policy changed: the cache's next array is checked, and grants what it now says.
    rows = [row(["Attachments"])];
    const third = await writeViewFor(ctx, pipeline);
    expect(policiesIn(third)).not.toBe(policiesIn(first));
    expect(behavioursOf(third)).toEqual(["Attachments"]);
  });

  it("refuses a stored row that fails its check on every request, not only the first", async () => {
    const bad = { ...row(["RecordEvidence"]), filters: [{ or: ["no operator here"] }] };
    const ctx = contextServing(() => [bad]);
    await expect(writeViewFor(ctx, pipeline)).rejects.toThrow();
    await expect(writeViewFor(ctx, pipeline)).rejects.toThrow();
  });
});
