import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { eventToStatement } from "../../../src/core/scitt/index.js";
import type { statementList } from "../../../src/http/schemas/statements.js";
import { applicationSubject, grantAccess } from "../../helpers/access-policy.js";
import { evidence, postEvent } from "../../helpers/records.js";
import { trustVectorKey } from "../../helpers/scitt-requests.js";
import { plainApplication, startTestService, type TestService } from "../../helpers/service.js";
import { deterministicSigner } from "../../helpers/vector-key.js";

// Statements found by subject, issuer and payload hash, on the project's engine (PGlite or
// PostgreSQL): registered ones, those made from asset events and from asset-free events, each
// only where the caller may read it.
let s: TestService;
let adminA: string;
let adminB: string;
let issuerA: string;
const TEL = "tel:+15551230001";
const VCON = "vcon://0190b6a1-0000-7000-8000-0000000000aa";
const hash = (n: number) => Buffer.alloc(32, n).toString("hex");
const template = (subject: string, n: number, type = "vcon_created") => ({
  arc_display_type: type,
  payload: hash(n),
  payload_hash_alg: "SHA-256",
  payload_preimage_content_type: "application/vcon+json",
  subject,
  timestamp_declared: "2025-01-01T00:00:00Z",
  vcon_operation: type,
  vcon_draft_version: "01",
});

/** The answer as the route documents it. */
type Page = z.infer<typeof statementList>;

async function find(token: string, query: string): Promise<Page> {
  const r = await s.api(`/archivist/v1/statements?${query}`, { token });
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.json()) as Page;
}

async function assetWithEvents(token: string, events: Record<string, string>[]): Promise<string> {
  const a = await s.api("/archivist/v2/assets", {
    method: "POST",
    token,
    json: { attributes: { arc_display_type: "vcon", team: "blue" } },
  });
  const asset = ((await a.json()) as { identity: string }).identity;
  for (const attrs of events) {
    const e = await postEvent(s, token, asset, evidence(attrs));
    expect(e.status, await e.clone().text()).toBe(200);
  }
  return asset;
}

beforeAll(async () => {
  s = await startTestService();
  adminA = await s.token(s.a);
  adminB = await s.token(s.b);
  issuerA = (
    (await (await s.api("/archivist/v1/scitt/keys", { token: adminA })).json()) as { issuer: string }
  ).issuer;
  await trustVectorKey(s, adminA);
  const statement = eventToStatement(
    template(VCON, 1),
    { issuer: "https://conserver.example", kid: "test-key-1" },
    deterministicSigner,
  );
  const reg = await s.api("/entries", {
    method: "POST",
    headers: { "content-type": "application/cose", authorization: `Bearer ${adminA}` },
    body: Buffer.from(statement),
    redirect: "manual",
  });
  expect([201, 202, 303], await reg.clone().text()).toContain(reg.status);
  await assetWithEvents(adminA, [
    template(TEL, 2),
    template(TEL, 3, "vcon_updated"),
    { arc_display_type: "note" },
  ]);
  const free = await s.api("/archivist/v1/events", {
    method: "POST",
    token: adminA,
    json: { attributes: template(VCON, 4), trails: [VCON] },
  });
  expect(free.status).toBe(200);
  await assetWithEvents(adminB, [template(TEL, 2)]);
});
afterAll(() => s?.stop());

describe("GET /archivist/v1/statements", () => {
  it("finds statements made from asset events by subject, newest first, with the tenancy as issuer", async () => {
    const page = await find(adminA, `subject=${encodeURIComponent(TEL)}`);
    expect(page.statements.map((f) => [f.kind, f.event_type, f.payload_hash])).toEqual([
      ["asset_event", "vcon_updated", hash(3)],
      ["asset_event", "vcon_created", hash(2)],
    ]);
    expect(page.statements.every((f) => f.issuer === issuerA && f.subject === TEL)).toBe(true);
    expect(page.next_page_token).toBe("");
  });

  it("finds registered statements and asset-free events by a vcon:// subject", async () => {
    const page = await find(adminA, `subject=${encodeURIComponent(VCON)}`);
    const kinds = page.statements.map((f) => f.kind).sort();
    expect(kinds).toEqual(["event", "registered"]);
    const registered = page.statements.find((f) => f.kind === "registered");
    expect(registered?.issuer).toBe("https://conserver.example");
    expect(registered?.entry_id).toMatch(/^events_[0-9a-f-]{36}$/);
    expect(registered?.payload_hash).toBe(hash(1));
  });

  it("finds by issuer: a registered statement's issuer, or the tenancy's own", async () => {
    const registered = await find(adminA, "issuer=https://conserver.example");
    expect(registered.statements.map((f) => f.kind)).toEqual(["registered"]);
    const own = await find(adminA, `issuer=${encodeURIComponent(issuerA)}`);
    expect(own.statements.map((f) => f.kind).sort()).toEqual(["asset_event", "asset_event", "event"]);
    expect((await find(adminA, "issuer=https://nobody.example")).statements).toEqual([]);
  });

  it("finds by payload hash (either case), and combines criteria", async () => {
    const byHash = await find(adminA, `payload_hash=${hash(2).toUpperCase()}`);
    expect(byHash.statements.map((f) => f.subject)).toEqual([TEL]);
    const both = await find(adminA, `payload_hash=${hash(2)}&subject=${encodeURIComponent(VCON)}`);
    expect(both.statements).toEqual([]);
  });

  it("never finds what the caller may not read: another tenancy's, or without a policy", async () => {
    const b = await find(adminB, `subject=${encodeURIComponent(TEL)}`);
    expect(b.statements).toHaveLength(1);
    expect(b.statements[0]?.issuer).not.toBe(issuerA);
    expect((await find(adminB, `subject=${encodeURIComponent(VCON)}`)).statements).toEqual([]);
    expect((await find(adminB, `issuer=${encodeURIComponent(issuerA)}`)).statements).toEqual([]);
    const { clientId, token: reader } = await plainApplication(s, adminA, { display_name: "reader" });
    expect((await find(reader, `subject=${encodeURIComponent(TEL)}`)).statements).toEqual([]);
    await grantAccess(s, adminA, "reader reads vCon creations", "attributes.team=blue", {
      asset_attributes_read: ["arc_display_type"],
      event_arc_display_type_read: ["vcon_created"],
      behaviours: [],
      event_arc_display_type_write: [],
      asset_attributes_write: [],
      ...applicationSubject(clientId),
    });
    // The policy reads vcon_created only: the vcon_updated event stays unfound; asset-free
    // events (and registered statements) are for the tenancy's administrators.
    const seen = await find(reader, `subject=${encodeURIComponent(TEL)}`);
    expect(seen.statements.map((f) => f.event_type)).toEqual(["vcon_created"]);
    expect((await find(reader, `subject=${encodeURIComponent(VCON)}`)).statements).toEqual([]);
  });

  it("pages through both kinds of records without repeating or losing one", async () => {
    const subject = "tel:+15559990000";
    await assetWithEvents(adminA, [template(subject, 10), template(subject, 11), template(subject, 12)]);
    for (const n of [13, 14])
      await s.api("/archivist/v1/events", {
        method: "POST",
        token: adminA,
        json: { attributes: template(subject, n), trails: [subject] },
      });
    const seen: string[] = [];
    let page = await find(adminA, `subject=${encodeURIComponent(subject)}&page_size=2`);
    const first = page.next_page_token;
    expect(first).not.toBe("");
    for (let i = 0; i < 5; i++) {
      seen.push(...page.statements.map((f) => f.payload_hash));
      if (!page.next_page_token) break;
      page = await find(adminA, `page_token=${encodeURIComponent(page.next_page_token)}`);
    }
    expect(seen).toHaveLength(5);
    expect([...seen].sort()).toEqual([10, 11, 12, 13, 14].map(hash));
    const bad = await s.api(`/archivist/v1/statements?page_token=${encodeURIComponent(first)}`, {
      token: adminB,
    });
    expect(bad.status).toBe(400);
  });

  it("refuses a search without criteria or with a malformed hash, and needs a token", async () => {
    for (const q of ["", "payload_hash=abc", "subject="]) {
      const r = await s.api(`/archivist/v1/statements?${q}`, { token: adminA });
      expect(r.status, q).toBe(400);
      expect(((await r.json()) as { code: string }).code).toBeTruthy();
    }
    expect((await s.api(`/archivist/v1/statements?subject=${TEL}`)).status).toBe(401);
  });

  it("is in the OpenAPI document with its query parameters", async () => {
    const doc = (await (await s.api("/archivist/v1:openapi", { token: adminA })).json()) as {
      paths: Record<string, { get?: { parameters: Array<{ name: string }> } }>;
    };
    const names = doc.paths["/archivist/v1/statements"]?.get?.parameters.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["subject", "issuer", "payload_hash", "page_token"]));
  });
});
