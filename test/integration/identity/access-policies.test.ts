import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainApplication, startTestService, type TestService } from "../../helpers/service.js";

let s: TestService;
let plain: string;
beforeAll(async () => {
  s = await startTestService({}, { access_policies: 1 });
  // An application without roles: authenticated, but no administrator.
  plain = (await plainApplication(s, await s.token(s.a))).token;
});
afterAll(() => s?.stop());

const BASE = "/archivist/iam/v1/access_policies";
const SUBJECT = "subjects/5d2c7a0e-7b1f-4c55-9a0e-3f1a2b3c4d5e";
type Policy = {
  identity: string;
  display_name: string;
  description: string;
  filters: Array<{ or: string[] }>;
  access_permissions: Array<Record<string, unknown>>;
  tenant: string;
};

const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;
const message = async (res: Response) => ((await res.json()) as { message: string }).message;

const fullPermission = {
  asset_attributes_read: ["arc_display_name", "weight"],
  asset_attributes_write: ["weight"],
  behaviours: ["RecordEvidence", "Attachments"],
  event_arc_display_type_read: ["Inspection"],
  event_arc_display_type_write: ["Inspection"],
  include_attributes: ["arc_display_name"],
  subjects: [SUBJECT],
  user_attributes: [{ or: ["email=alice@a.example", "subject=client-1", "jwt_team=blue", "group:auditors"] }],
};

function policy(overrides: Record<string, unknown> = {}) {
  return {
    display_name: "Cats",
    description: "read access to cats",
    filters: [{ or: ["attributes.arc_display_type=Cat", "attributes.arc_display_type=Kitten"] }],
    access_permissions: [fullPermission],
    ...overrides,
  };
}

describe("access policies", () => {
  it("creates with every permission field, reads, patches whole fields and deletes ({})", async () => {
    const token = await s.token(s.a);
    const res = await s.api(BASE, { method: "POST", token, json: policy() });
    expect(res.status).toBe(200);
    const created = await json<Policy>(res);
    expect(created.identity).toMatch(/^access_policies\/[0-9a-f-]{36}$/);
    expect(created.tenant).toMatch(/^tenant\/[0-9a-f-]{36}$/);
    expect(created).toMatchObject({
      display_name: "Cats",
      description: "read access to cats",
      filters: policy().filters,
      access_permissions: [fullPermission],
    });
    const id = created.identity.slice("access_policies/".length);
    expect(await json<Policy>(await s.api(`${BASE}/${id}`, { token }))).toEqual(created);

    const narrow = { asset_attributes_read: ["weight"], user_attributes: [{ or: ["email=bob@a.example"] }] };
    const patched = await json<Policy>(
      await s.api(`${BASE}/${id}`, { method: "PATCH", token, json: { access_permissions: [narrow] } }),
    );
    expect(patched.display_name).toBe("Cats");
    expect(patched.filters).toEqual(created.filters);
    expect(patched.access_permissions).toEqual([
      {
        asset_attributes_read: ["weight"],
        asset_attributes_write: [],
        behaviours: [],
        event_arc_display_type_read: [],
        event_arc_display_type_write: [],
        include_attributes: [],
        subjects: [],
        user_attributes: [{ or: ["email=bob@a.example"] }],
      },
    ]);
    const renamed = await json<Policy>(
      await s.api(`${BASE}/${id}`, { method: "PATCH", token, json: { display_name: "Felines" } }),
    );
    expect(renamed.display_name).toBe("Felines");

    const del = await s.api(`${BASE}/${id}`, { method: "DELETE", token });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({});
    expect((await s.api(`${BASE}/${id}`, { token })).status).toBe(404);
    expect((await s.api(`${BASE}/${id}`, { method: "DELETE", token })).status).toBe(404);
    expect(
      (await s.api(`${BASE}/${id}`, { method: "PATCH", token, json: { display_name: "x" } })).status,
    ).toBe(404);
  });

  it("refuses malformed policies with 400 naming the field", async () => {
    const token = await s.token(s.a);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ access_permissions: [{ ...fullPermission, frobnicate: ["x"] }] }, "frobnicate"],
      [{ filters: [{ or: ["arc_display_type=Cat"] }] }, "filters[0].or[0]"],
      [{ filters: [{ or: [] }] }, "filters[0]"],
      [{ filters: "attributes.a=b" }, "filters"],
      [{ access_permissions: [{ subjects: ["subjects/nope"] }] }, "access_permissions[0].subjects[0]"],
      [{ access_permissions: [{ user_attributes: [{ or: ["colour=blue"] }] }] }, "user_attributes"],
      [{ access_permissions: [{ behaviours: "RecordEvidence" }] }, "behaviours"],
      [{ display_name: "" }, "display_name"],
      [{ display_name: 12 }, "display_name"],
    ];
    for (const [overrides, field] of cases) {
      const res = await s.api(BASE, { method: "POST", token, json: policy(overrides) });
      expect(res.status, JSON.stringify(overrides)).toBe(400);
      expect(await message(res)).toContain(field);
    }
    const created = await json<Policy>(await s.api(BASE, { method: "POST", token, json: policy() }));
    const id = created.identity.slice("access_policies/".length);
    const bad = await s.api(`${BASE}/${id}`, {
      method: "PATCH",
      token,
      json: { access_permissions: [{ behavior: ["RecordEvidence"] }] },
    });
    expect(bad.status).toBe(400);
    expect(await message(bad)).toContain("behavior");
    expect(await json<Policy>(await s.api(`${BASE}/${id}`, { token }))).toEqual(created);
  });

  it("lists with display_name filter and opaque page tokens", async () => {
    const token = await s.token(s.a);
    for (const name of ["list-1", "list-2", "list-3"])
      await s.api(BASE, { method: "POST", token, json: policy({ display_name: name }) });
    const byName = await json<{ access_policies: Policy[]; next_page_token: string }>(
      await s.api(`${BASE}?display_name=list-2`, { token }),
    );
    expect(byName.access_policies.map((p) => p.display_name)).toEqual(["list-2"]);
    expect(byName.next_page_token).toBe("");
    const q = `${BASE}?page_size=2&display_name=list-1&display_name=list-2&display_name=list-3`;
    const page1 = await json<{ access_policies: Policy[]; next_page_token: string }>(
      await s.api(q, { token }),
    );
    expect(page1.access_policies.map((p) => p.display_name)).toEqual(["list-1", "list-2"]);
    const page2 = await json<{ access_policies: Policy[]; next_page_token: string }>(
      await s.api(`${BASE}?page_token=${encodeURIComponent(page1.next_page_token)}`, { token }),
    );
    expect(page2.access_policies.map((p) => p.display_name)).toEqual(["list-3"]);
    expect(page2.next_page_token).toBe("");
    expect((await s.api(`${BASE}?page_size=abc`, { token })).status).toBe(400);
  });

  it("answers 402 past the quota, 403 to non-administrators, 401 without a token, 404 across tenancies", async () => {
    const tb = await s.token(s.b);
    const first = await s.api(BASE, { method: "POST", token: tb, json: policy() });
    expect(first.status).toBe(200);
    expect((await s.api(BASE, { method: "POST", token: tb, json: policy() })).status).toBe(402);
    const id = (await json<Policy>(first)).identity.slice("access_policies/".length);

    const calls: Array<[string, string, unknown?]> = [
      ["GET", BASE],
      ["POST", BASE, policy()],
      ["GET", `${BASE}/${id}`],
      ["PATCH", `${BASE}/${id}`, { display_name: "x" }],
      ["DELETE", `${BASE}/${id}`],
    ];
    for (const [method, path, body] of calls) {
      expect((await s.api(path, { method, token: plain, json: body })).status, `${method} ${path}`).toBe(403);
      expect((await s.api(path, { method, json: body })).status, `${method} ${path}`).toBe(401);
    }
    const ta = await s.token(s.a);
    expect((await s.api(`${BASE}/${id}`, { token: ta })).status).toBe(404);
    expect(
      (await s.api(`${BASE}/${id}`, { method: "PATCH", token: ta, json: { display_name: "x" } })).status,
    ).toBe(404);
    expect((await s.api(`${BASE}/${id}`, { method: "DELETE", token: ta })).status).toBe(404);
    expect((await s.api(`${BASE}/not-a-uuid`, { token: ta })).status).toBe(404);
  });
});
