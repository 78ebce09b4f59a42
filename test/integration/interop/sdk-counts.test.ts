import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { describe, expect, it } from "vitest";
import { pki } from "../../helpers/pki.js";
import { plainApplication, serviceForSuite } from "../../helpers/service.js";

// Replays the DataTrails Python SDK's `count()` (archivistpublic.py, v0.33.2): a list GET with
// `page_size=1`, its selector as query parameters and `X-Request-Total-Count: true`, reading the
// `X-Total-Count` header and raising when it is absent. Its functests count access policies,
// compliance policies, subjects, assets and public events; every other collection is counted the
// same way by its classes, so each collection of the interface is asked here.
const suite = serviceForSuite();

const walletKey = () =>
  Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false)).toString("hex");

async function count(path: string, params: Record<string, string> = {}, token = suite.token) {
  const q = new URLSearchParams({ page_size: "1", ...params });
  const res = await suite.s.api(`${path}?${q}`, {
    token,
    headers: { "X-Request-Total-Count": "true" },
  });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  const header = res.headers.get("x-total-count");
  expect(header, `${path} answers no x-total-count`).not.toBeNull();
  return Number(header);
}

async function create(path: string, json: unknown): Promise<void> {
  const res = await suite.s.api(path, { method: "POST", token: suite.token, json });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
}

const sincePolicy = (name: string) => ({
  compliance_type: "COMPLIANCE_SINCE",
  description: "since policy",
  display_name: name,
  asset_filter: [{ or: ["attributes.arc_display_type=since-test"] }],
  event_display_type: "Maintenance Performed",
  time_period_seconds: 86400,
});

describe("the SDK's count() on every collection", () => {
  it("counts each collection, before and after two creations, and with its filters", async () => {
    const collections: Array<{ path: string; make: (i: number) => unknown }> = [
      {
        path: "/archivist/iam/v1/access_policies",
        make: (i) => ({
          display_name: `count policy ${i}`,
          filters: [{ or: ["attributes.arc_display_type=counted"] }],
          access_permissions: [{ subjects: [], behaviours: ["RecordEvidence"], include_attributes: [] }],
        }),
      },
      { path: "/archivist/v1/compliance_policies", make: (i) => sincePolicy(`count since ${i}`) },
      { path: "/archivist/v2/locations", make: (i) => ({ display_name: `count location ${i}` }) },
      {
        path: "/archivist/iam/v1/subjects",
        make: (i) => ({
          display_name: `count subject ${i}`,
          wallet_pub_key: [walletKey()],
          tessera_pub_key: [randomBytes(32).toString("base64")],
        }),
      },
      { path: "/archivist/iam/v1/applications", make: (i) => ({ display_name: `count app ${i}` }) },
      { path: "/archivist/iam/v1/invites", make: (i) => ({ email: `count${i}@a.example`, message: "hi" }) },
      {
        path: "/archivist/v1/tlscacertificates",
        make: (i) => ({ display_name: `count ca ${i}`, certificate: pki("ca.pem") }),
      },
    ];
    for (const c of collections) {
      const before = await count(c.path);
      await create(c.path, c.make(1));
      await create(c.path, c.make(2));
      expect(await count(c.path), c.path).toBe(before + 2);
    }
    // Members: the owner is an application, members come from the provisioning file (none here).
    expect(await count("/archivist/iam/v1/members")).toBe(0);
    expect(await count("/archivist/iam/v1/members", { member_state: "MEMBER_STATE_BOTH" })).toBe(0);
    expect(await count("/archivist/iam/v1/memberships")).toBe(0);

    // Filters narrow the count as they narrow the list (the SDK sends its props as parameters).
    expect(await count("/archivist/v2/locations", { display_name: "count location 1" })).toBe(1);
    expect(await count("/archivist/iam/v1/applications", { display_name: "count app 2" })).toBe(1);
    expect(await count("/archivist/iam/v1/subjects", { display_name: "no such subject" })).toBe(0);
    expect(await count("/archivist/v1/compliance_policies", { compliance_type: "COMPLIANCE_SINCE" })).toBe(2);
    expect(await count("/archivist/v1/compliance_policies", { compliance_type: "COMPLIANCE_RICHNESS" })).toBe(
      0,
    );
  });

  it("counts only what the caller may list: a plain application is refused the administrators' lists", async () => {
    const plain = await plainApplication(suite.s, suite.token);
    const res = await suite.s.api("/archivist/iam/v1/access_policies?page_size=1", {
      token: plain.token,
      headers: { "X-Request-Total-Count": "true" },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("x-total-count")).toBeNull();
  });

  it("pages and counts agree: the count is the number of rows the pages return", async () => {
    for (let i = 3; i <= 7; i++)
      await create("/archivist/v2/locations", { display_name: `count location ${i}` });
    const total = await count("/archivist/v2/locations");
    let seen = 0;
    let token = "";
    do {
      const q = new URLSearchParams({ page_size: "2", ...(token ? { page_token: token } : {}) });
      const res = await suite.s.api(`/archivist/v2/locations?${q}`, { token: suite.token });
      const body = (await res.json()) as { locations: unknown[]; next_page_token: string };
      seen += body.locations.length;
      token = body.next_page_token;
    } while (token);
    expect(seen).toBe(total);
  });
});
