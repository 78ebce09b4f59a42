import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventToStatement } from "../../../src/core/scitt/index.js";
import { decodeCbor } from "../../../src/formats/cbor/index.js";
import { trustVectorKey } from "../../helpers/scitt-requests.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { deterministicSigner } from "../../helpers/vector-key.js";

/*
 * Issue 55 (from the third pass): a statement whose issuer is 900 kB was not answered within
 * 3 s, then failed as a 500: statements are looked up by issuer and subject through B-tree
 * indexes, whose entries hold ~2.7 kB. The claims are bounded at registration (a 400 found by
 * reading the statement alone), and so are the record attributes those indexes read.
 */
let s: TestService;
let token: string;
let tenant: string;

beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_SCRAPI_WAIT_MS: "0" });
  token = await s.token(s.a);
  await trustVectorKey(s, token);
  const open = await s.api("/archivist/v1/scitt/registration-policy", {
    method: "PUT",
    token,
    json: { open: true, requests_per_second: 1000 },
  });
  expect(open.status).toBe(200);
  tenant = (
    (await (await s.api("/archivist/v1/scitt/keys", { token })).json()) as { issuer: string }
  ).issuer.split("/tenant/")[1] as string;
}, 120_000);
afterAll(() => s?.stop());

const statement = (claims: { issuer: string; subject: string }, kid = "test-key-1") =>
  eventToStatement(
    {
      arc_display_type: "vcon_created",
      payload: randomBytes(32).toString("hex"),
      payload_hash_alg: "SHA-256",
      payload_preimage_content_type: "application/vcon+json",
      subject: claims.subject,
      timestamp_declared: "2025-01-01T00:00:00Z",
      vcon_operation: "vcon_created",
      vcon_draft_version: "01",
      scitt_draft_version: "10",
    },
    { issuer: claims.issuer, kid },
    deterministicSigner,
  );
const register = (path: string, body: Uint8Array, withToken: boolean) =>
  s.api(path, {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: Buffer.from(body),
    redirect: "manual",
    ...(withToken ? { token } : {}),
  });
/** The detail of SCRAPI's concise problem details (CBOR, key -2). */
const detail = async (res: Response) =>
  (decodeCbor(new Uint8Array(await res.arrayBuffer())) as Map<number, unknown>).get(-2);

const padded = (prefix: string, bytes: number) => prefix + "a".repeat(bytes - prefix.length);
const ISSUER = "https://conserver.example";
const SUBJECT = "vcon://0190b6a1-0000-7000-8000-000000000001";

describe("a statement's issuer and subject are bounded at registration", () => {
  it.each([
    [
      "issuer",
      { issuer: padded("https://", 900_000), subject: SUBJECT },
      /CWT issuer \(1\) is longer than 1024 bytes/,
    ],
    [
      "subject",
      { issuer: ISSUER, subject: padded("vcon://", 900_000) },
      /CWT subject \(2\) is longer than 1024 bytes/,
    ],
  ])(
    "refuses a 900 kB %s with a 400 that says so, by signature and with a token",
    async (_n, claims, why) => {
      for (const withToken of [false, true]) {
        const res = await register(`/tenants/${tenant}/entries`, statement(claims), withToken);
        expect(res.status).toBe(400);
        expect(await detail(res)).toMatch(why);
      }
      // DataTrails' form answers its own refusal shape.
      const dt = await register("/archivist/v1/publicscitt/entries", statement(claims), true);
      expect(dt.status).toBe(400);
      expect(JSON.stringify(await dt.json())).toMatch(why);
    },
  );

  it("refuses it from the statement alone: before its key or the log's policy are looked up", async () => {
    const huge = { issuer: padded("https://", 900_000), subject: SUBJECT };
    // Signed by a key nobody trusts, sent to the root log (this service has no public log):
    // either would be refused too, later, after reads.
    const res = await register("/entries", statement(huge, "nobody's key"), false);
    expect(res.status).toBe(400);
    expect(await detail(res)).toMatch(/CWT issuer \(1\) is longer than 1024 bytes/);
  });

  it("registers claims of 1024 bytes, and answers the next registrations as before", async () => {
    const res = await register(
      `/tenants/${tenant}/entries`,
      statement({ issuer: padded("https://", 1024), subject: padded("vcon://", 1024) }),
      false,
    );
    expect([201, 202]).toContain(res.status);
    const next = await register(
      `/tenants/${tenant}/entries`,
      statement({ issuer: ISSUER, subject: SUBJECT }),
      true,
    );
    expect([201, 202]).toContain(next.status);
  });
});

describe("the record attributes statements are looked up by are bounded too", () => {
  const long = randomBytes(2048).toString("hex");
  const event = (attrs: Record<string, unknown>) => ({
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: attrs,
  });

  it("answers 400 for an asset event's subject and an asset-free event's subject or scitt_issuer past the bound", async () => {
    const made = await s.api("/archivist/v2/assets", { method: "POST", token, json: {} });
    const asset = ((await made.json()) as { identity: string }).identity;
    for (const subject of [long, { nested: long }]) {
      const res = await s.api(`/archivist/v2/${asset}/events`, {
        method: "POST",
        token,
        json: event({ subject }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(
        /event_attributes\.subject is longer than 1024 bytes/,
      );
    }
    for (const name of ["subject", "scitt_issuer"]) {
      const res = await s.api("/archivist/v1/events", {
        method: "POST",
        token,
        json: { attributes: { [name]: long }, trails: ["t"] },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(
        new RegExp(`attributes\\.${name} is longer than 1024 bytes`),
      );
    }
    // `payload` has an index of its own: a 12 kB incompressible payload alone is a 400, not a 500.
    const payload = randomBytes(6144).toString("hex");
    const alone = await s.api(`/archivist/v2/${asset}/events`, {
      method: "POST",
      token,
      json: event({ arc_display_type: "vcon_created", payload }),
    });
    expect(alone.status, await alone.clone().text()).toBe(400);
    expect(((await alone.json()) as { message: string }).message).toMatch(
      /event_attributes\.payload is longer than 1024 bytes/,
    );
    const free = await s.api("/archivist/v1/events", {
      method: "POST",
      token,
      json: { attributes: { payload }, trails: ["t"] },
    });
    expect(free.status).toBe(400);
    // Within the bound, and a name no index reads, as before.
    const ok = await s.api(`/archivist/v2/${asset}/events`, {
      method: "POST",
      token,
      json: event({ subject: long.slice(0, 1024), scitt_issuer: long }),
    });
    expect(ok.status, await ok.clone().text()).toBe(200);
  });
});
