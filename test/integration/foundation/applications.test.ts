import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../../helpers/service.js";

let s: TestService;
beforeAll(async () => {
  s = await startTestService({}, { applications: 4 });
});
afterAll(() => s?.stop());

const BASE = "/archivist/iam/v1/applications";
type App = {
  identity: string;
  client_id: string;
  display_name: string;
  custom_claims: Record<string, string>;
  credentials: Array<{ secret: string; valid_from: string; valid_until: string }>;
};

async function tokenWith(clientId: string, secret: string): Promise<Response> {
  return s.api("/archivist/iam/v1/appidp/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: secret,
    }),
  });
}

/** A new application the owner `token` makes, and a token of its first secret (through tokenWith). */
async function newApplication(token: string, display_name: string): Promise<{ app: App; token: string }> {
  const app = (await (await s.api(BASE, { method: "POST", token, json: { display_name } })).json()) as App;
  const minted = (await (await tokenWith(app.client_id, app.credentials[0]?.secret ?? "")).json()) as {
    access_token: string;
  };
  return { app, token: minted.access_token };
}

describe("application registrations", () => {
  it("creates with a secret shown once, reads without it, patches whole fields", async () => {
    const token = await s.token(s.a);
    const res = await s.api(BASE, {
      method: "POST",
      token,
      json: { display_name: "ingest", custom_claims: { team: "blue" } },
    });
    expect(res.status).toBe(200);
    const app = (await res.json()) as App;
    expect(app.identity).toBe(`applications/${app.client_id}`);
    expect(app.credentials[0]?.secret.length).toBeGreaterThan(20);
    expect(Date.parse(app.credentials[0]?.valid_until ?? "")).toBeGreaterThan(Date.now());
    const read = (await (await s.api(`${BASE}/${app.client_id}`, { token })).json()) as App;
    expect(read.credentials[0]?.secret).toBe("");
    const patched = (await (
      await s.api(`${BASE}/${app.client_id}`, {
        method: "PATCH",
        token,
        json: { custom_claims: { site: "x" } },
      })
    ).json()) as App;
    expect(patched.custom_claims).toEqual({ site: "x" });
    expect(patched.display_name).toBe("ingest");
    const minted = await tokenWith(app.client_id, app.credentials[0]?.secret ?? "");
    expect(minted.status).toBe(200);
  });

  it("refuses reserved and registered custom claim names with 400 naming the claim", async () => {
    const token = await s.token(s.a);
    for (const name of ["jit_tenant", "arc_thing", "sub", "exp", "aud"]) {
      const res = await s.api(BASE, {
        method: "POST",
        token,
        json: { display_name: "bad", custom_claims: { [name]: "v" } },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(name);
    }
  });

  it("regenerates: the old secret stops working, issued tokens stay valid", async () => {
    const token = await s.token(s.a);
    const app = (await (
      await s.api(BASE, { method: "POST", token, json: { display_name: "rotating", roles: ["Owner"] } })
    ).json()) as App;
    const oldSecret = app.credentials[0]?.secret ?? "";
    const issued = ((await (await tokenWith(app.client_id, oldSecret)).json()) as { access_token: string })
      .access_token;
    const regen = await s.api(`${BASE}/${app.client_id}:regenerate-secret`, { method: "POST", token });
    expect(regen.status).toBe(200);
    const newSecret = ((await regen.json()) as App).credentials[0]?.secret ?? "";
    expect(newSecret).not.toBe(oldSecret);
    expect((await tokenWith(app.client_id, oldSecret)).status).toBe(401);
    expect((await tokenWith(app.client_id, newSecret)).status).toBe(200);
    expect((await s.api(BASE, { token: issued })).status).toBe(200);
  });

  it("needs owner privileges: a new non-owner application gets 403", async () => {
    const token = await s.token(s.a);
    const { token: plain } = await newApplication(token, "plain");
    const res = await s.api(BASE, { method: "POST", token: plain, json: { display_name: "nope" } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: number }).code).toBe(7);
  });

  it("answers 402 past the quota (the provisioned owner counts)", async () => {
    const token = await s.token(s.b);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await s.api(BASE, { method: "POST", token, json: { display_name: `q${i}` } })).status);
    expect(statuses).toEqual([200, 200, 200, 402]);
  });

  it("filters by display_name, pages with opaque tokens that carry the query", async () => {
    const token = await s.token(s.b);
    const first = await s.api(`${BASE}?page_size=1&display_name=q0&display_name=q1`, { token });
    const page1 = (await first.json()) as { applications: App[]; next_page_token: string };
    expect(page1.applications.map((a) => a.display_name)).toEqual(["q0"]);
    expect(page1.next_page_token).not.toBe("");
    const page2 = (await (
      await s.api(`${BASE}?page_token=${encodeURIComponent(page1.next_page_token)}`, { token })
    ).json()) as typeof page1;
    expect(page2.applications.map((a) => a.display_name)).toEqual(["q1"]);
    expect(page2.next_page_token).toBe("");
  });

  it("rejects tampered page tokens and tokens replayed by another tenancy", async () => {
    const tb = await s.token(s.b);
    const page1 = (await (await s.api(`${BASE}?page_size=1`, { token: tb })).json()) as {
      next_page_token: string;
    };
    const tok = page1.next_page_token;
    const tampered = `${tok.slice(0, 5)}${tok[5] === "A" ? "B" : "A"}${tok.slice(6)}`;
    expect((await s.api(`${BASE}?page_token=${encodeURIComponent(tampered)}`, { token: tb })).status).toBe(
      400,
    );
    const ta = await s.token(s.a);
    expect((await s.api(`${BASE}?page_token=${encodeURIComponent(tok)}`, { token: ta })).status).toBe(400);
  });

  it("hides other tenancies' applications (404)", async () => {
    const ta = await s.token(s.a);
    expect((await s.api(`${BASE}/${s.b.clientId}`, { token: ta })).status).toBe(404);
    expect((await s.api(`${BASE}/${s.b.clientId}`, { method: "DELETE", token: ta })).status).toBe(404);
    expect((await s.api(`${BASE}/not-a-uuid`, { token: ta })).status).toBe(404);
  });
});

describe("wire conventions", () => {
  it("answers malformed JSON, wrong types and unknown routes with the error body", async () => {
    const token = await s.token(s.a);
    const bad = await s.api(BASE, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{nope",
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 3, details: [] });
    const wrongType = await s.api(BASE, { method: "POST", token, json: { display_name: 42 } });
    expect(wrongType.status).toBe(400);
    expect(((await wrongType.json()) as { message: string }).message).toContain("display_name");
    const unknown = await s.api("/archivist/v9/nothing", { token });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 5 });
    const deep = await s.api(BASE, {
      method: "POST",
      token,
      json: JSON.parse(`${"[".repeat(80)}${"]".repeat(80)}`),
    });
    expect(deep.status).toBe(400);
  });

  it("answers 400 for a bad page_size, clamps a big one", async () => {
    const token = await s.token(s.a);
    expect((await s.api(`${BASE}?page_size=abc`, { token })).status).toBe(400);
    expect((await s.api(`${BASE}?page_size=100000`, { token })).status).toBe(200);
  });

  it("serves the tenancy public info, health, readiness, metrics and an OpenAPI document", async () => {
    const token = await s.token(s.a);
    const self = (await (await s.api("/archivist/v1/tenancies/self", { token })).json()) as {
      identity: string;
    };
    const uuid = self.identity.replace("tenant/", "");
    expect((await s.api(`/archivist/v1/tenancies/${uuid}:publicinfo`, { token })).status).toBe(200);
    expect((await s.api("/healthz")).status).toBe(200);
    expect((await s.api("/readyz")).status).toBe(200);
    // Off unless ARCHIVIST_METRICS_TOKEN is set (the third hostile pass's metrics test covers it on).
    expect((await s.api("/metrics")).status).toBe(404);
    const doc = (await (await s.api("/archivist/iam/v1/applications:openapi", { token })).json()) as {
      swagger: string;
      paths: Record<string, unknown>;
    };
    expect(doc.swagger).toBe("2.0");
    expect(Object.keys(doc.paths)).toContain("/archivist/iam/v1/applications/{uuid}:regenerate-secret");
    for (const prefix of [
      "/archivist/v1/invites",
      "/archivist/v1/tlscacertificates",
      "/archivist/v1/archivistnode",
      "/archivist/v1alpha2/blockchain/assets",
      "/archivist/v2/assets",
    ]) {
      const d = (await (await s.api(`${prefix}:openapi`, { token })).json()) as {
        swagger: string;
        paths: Record<string, unknown>;
      };
      expect(d.swagger, prefix).toBe("2.0");
      expect(Object.keys(d.paths).length, prefix).toBeGreaterThan(0);
    }
    // Without a token: a prefix's public routes only (accepting an invite), or 401 where it has none.
    const anonymous = (await (await s.api("/archivist/v1/invites:openapi")).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(anonymous.paths)).toEqual(["/archivist/v1/invites/{uuid}:accept"]);
    expect((await s.api("/archivist/iam/v1/applications:openapi")).status).toBe(401);
  });

  it("makes an application an administrator through the root principals endpoint", async () => {
    const token = await s.token(s.a);
    const { app, token: t2 } = await newApplication(token, "future admin");
    expect((await s.api(BASE, { token: t2 })).status).toBe(403);
    const put = await s.api("/archivist/v1/tenancies/root_principals", {
      method: "PATCH",
      token,
      json: {
        root_principals: [{ issuer: `${s.url}/appidpv1`, subject: app.client_id, display_name: "robot" }],
      },
    });
    expect(put.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await s.api(BASE, { token: t2 })).status).toBe(200);
  });
});
