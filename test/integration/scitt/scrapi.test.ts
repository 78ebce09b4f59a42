import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyCommand } from "../../../src/cli/verify.js";
import { signSign1 } from "../../../src/core/log/sign1.js";
import { eventToStatement, LEGACY_CWT_CLAIMS, registeredTreeLeaf } from "../../../src/core/scitt/index.js";
import { type CborValue, decodeCbor } from "../../../src/formats/cbor/index.js";
import {
  decodeRfc9162Receipt,
  ES256,
  HEADER,
  receiptVds,
  verifyRfc9162Receipt,
} from "../../../src/formats/cose/index.js";
import { verifyConsistency } from "../../../src/formats/rfc9162/index.js";
import { verifyStatement } from "../../../src/verify/index.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { runCli } from "../../helpers/cli-output.js";
import { until } from "../../helpers/poll.js";
import { createAsset, evidence, postEvent } from "../../helpers/records.js";
import { trustVectorKey } from "../../helpers/scitt-requests.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { deterministicSigner, vectorPublicKey } from "../../helpers/vector-key.js";

// SCRAPI -10 on a service whose tenancy A is the service-level public log, answering every
// registration at once (no wait for the receipt), so each one is pending first: 202 + Location.
const publicLog = randomUUID();
let s: TestService;
let tokenA: string;
let tokenB: string;
let tenantB: string;
beforeAll(async () => {
  s = await startTestService(
    { ARCHIVIST_SCITT_PUBLIC_LOG: publicLog, ARCHIVIST_SCRAPI_WAIT_MS: "0" },
    {},
    {},
    { a: publicLog },
  );
  tokenA = await s.token(s.a);
  tokenB = await s.token(s.b);
  const keysB = (await (await s.api("/archivist/v1/scitt/keys", { token: tokenB })).json()) as {
    issuer: string;
  };
  tenantB = keysB.issuer.split("/tenant/")[1] as string;
  for (const token of [tokenA, tokenB]) await trustVectorKey(s, token);
});
afterAll(() => s?.stop());

const template = (n: number) => ({
  arc_display_type: "vcon_created",
  payload: Buffer.alloc(32, n).toString("hex"),
  payload_hash_alg: "SHA-256",
  payload_preimage_content_type: "application/vcon+json",
  subject: `vcon://0190b6a1-0000-7000-8000-00000000000${n}`,
  timestamp_declared: "2025-01-01T00:00:00Z",
  vcon_operation: "vcon_created",
  vcon_draft_version: "01",
  scitt_draft_version: "10",
});
const statementOf = (n: number) =>
  eventToStatement(
    template(n),
    { issuer: "https://conserver.example", kid: "test-key-1" },
    deterministicSigner,
  );
const cose = (body: Uint8Array, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/cose", ...headers },
  body: Buffer.from(body),
  redirect: "manual" as const,
});
const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());
/** A decoded CBOR value with its maps as plain objects, to compare with the same JSON. */
const plain = (v: CborValue): unknown =>
  v instanceof Map
    ? Object.fromEntries([...v].map(([k, x]) => [String(k), plain(x)]))
    : Array.isArray(v)
      ? v.map(plain)
      : v;
const serviceKeys = async () => keysFromKeySet(await bytes(await s.api("/.well-known/scitt-keys")));
const issuerKeys = async () => new Map([...(await serviceKeys()), ["test-key-1", vectorPublicKey]]);

/**
 * Registers without a token, expects 202 + Location, then polls the Location (204 while registering) to its receipt.
 * On a loaded machine the seal can come before the one look the service takes (wait 0): then
 * the answer is already the 201 with the receipt, which is what a pending one ends in.
 */
async function registerPending(path: string, statement: Uint8Array, headers: Record<string, string> = {}) {
  const res = await s.api(path, cose(statement, headers));
  expect([201, 202], await res.clone().text()).toContain(res.status);
  const location = res.headers.get("location") ?? "";
  expect(location).toMatch(/\/entries\/events_[0-9a-f-]{36}$/);
  if (res.status === 201) return { location, receipt: res };
  expect(res.headers.get("retry-after")).toBe("1");
  const receipt = await until(async () => {
    const r = await s.api(location, { redirect: "manual", headers });
    if (r.status !== 200)
      expect([r.status, r.headers.get("retry-after"), r.headers.get("cache-control")]).toEqual([
        204,
        "1",
        "no-store",
      ]);
    return r.status === 200 ? r : undefined;
  });
  return { location, receipt };
}

describe("SCRAPI -10 discovery", () => {
  it("serves the transparency configuration in CBOR by default and in JSON when asked", async () => {
    const cbor = await s.api("/.well-known/transparency-configuration");
    expect(cbor.headers.get("content-type")).toContain("application/cbor");
    const c = decodeCbor(await bytes(cbor)) as Map<CborValue, CborValue>;
    expect(c.get("issuer")).toBe(s.url);
    expect(c.get("registration_endpoint")).toBe(`${s.url}/entries`);
    expect(c.get("jwks_uri")).toBe(`${s.url}/jwks`);
    expect(c.get("default_verifiable_data_structure")).toBe(1);
    expect(c.get("verifiable_data_structures")).toEqual([1, 3]);
    expect(c.get("registration_by_signature")).toBe(true);
    const json = await s.api("/.well-known/transparency-configuration", {
      headers: { accept: "application/json" },
    });
    expect(json.headers.get("content-type")).toContain("application/json");
    expect(await json.json()).toEqual(plain(c));
    // What a leaf is in each profile, for a generic verifier: no profile's leaf is the statement's bytes.
    const rules = c.get("leaf_rules") as Map<string, Map<string, CborValue>>;
    expect(rules.get("RFC9162_SHA256")?.get("registered_statement")).toMatch(/SHA-256\(statement payload\)/);
    expect(rules.get("MMR")?.get("vds")).toBe(3);
    for (const r of rules.values()) expect(r.get("statement_bytes")).toBe(false);
    const tenant = (await (
      await s.api(`/tenants/${tenantB}/.well-known/transparency-configuration`, {
        headers: { accept: "application/json" },
      })
    ).json()) as Record<string, unknown>;
    expect(tenant.registration_endpoint).toBe(`${s.url}/tenants/${tenantB}/entries`);
  });

  it("publishes the keys as a JWK Set (the receipt key first) and as a COSE_KeySet with the same kids", async () => {
    const jwks = (await (await s.api("/jwks")).json()) as { keys: Array<Record<string, string>> };
    const cose = await serviceKeys();
    expect(jwks.keys.map((k) => k.kid)).toEqual([...cose.keys()]);
    for (const k of jwks.keys) {
      expect(k).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256" });
      expect(k.d).toBeUndefined();
    }
    const { receipt } = await registerPending("/entries", statementOf(1));
    expect(decodeRfc9162Receipt(await bytes(receipt)).kid).toBe(jwks.keys[0]?.kid);
  });
});

describe("registration by signature", () => {
  it("registers in the public log without a token, 202 polling to an RFC9162_SHA256 receipt of the payload", async () => {
    const statement = statementOf(2);
    const { location, receipt } = await registerPending("/entries", statement);
    expect(receipt.headers.get("content-type")).toBe("application/scitt-receipt+cose");
    const r = await bytes(receipt);
    expect(receiptVds(r)).toBe(1);
    const key = (await serviceKeys()).get(decodeRfc9162Receipt(r).kid);
    expect(key).toBeDefined();
    // The leaf is SHA-256(0x00 ‖ SHA-256(payload)), recomputed from the statement alone.
    expect(verifyRfc9162Receipt(r, registeredTreeLeaf(statement), key as never).ok).toBe(true);
    // The MMR profile of the same entry, by query and by Accept; the old media type still served.
    const mmr = await s.api(`${location}?profile=mmr`, { headers: { accept: "application/cose" } });
    expect(mmr.headers.get("content-type")).toBe("application/cose");
    const byAccept = await s.api(location, { headers: { accept: "application/scitt-receipt+cose; vds=3" } });
    const mmrReceipt = await bytes(byAccept);
    expect(receiptVds(mmrReceipt)).toBe(3);
    expect(Buffer.from(await bytes(mmr)).equals(Buffer.from(mmrReceipt))).toBe(true);
    const conflicting = await s.api(`${location}?profile=mmr`, {
      headers: { accept: "application/scitt-receipt+cose; vds=1" },
    });
    expect(conflicting.status).toBe(400);
    expect(conflicting.headers.get("content-type")).toContain("application/concise-problem-details+cbor");
    const v = verifyStatement(statement, {
      issuerKeys: await issuerKeys(),
      serviceKeys: await serviceKeys(),
      receipts: [r, mmrReceipt],
    });
    expect(v).toMatchObject({ ok: true, receipts: 2, profiles: ["rfc9162", "mmr"] });
    // The entry is in tenancy A's log, recorded as registered by its issuer.
    const event = (await (
      await s.api(`/archivist/v1/events/${location.split("events_")[1]}`, { token: tokenA })
    ).json()) as {
      created_by: string;
      event_type: string;
    };
    expect(event).toMatchObject({ created_by: "https://conserver.example", event_type: "scitt_statement" });
  });

  it("reads CWT claims at label 13 as if at 15, the signature still over the bytes as sent", async () => {
    const protectedHeader = new Map<CborValue, CborValue>([
      [HEADER.alg, ES256],
      [HEADER.kid, new TextEncoder().encode("test-key-1")],
      [-6802, "application/vcon+json"],
      [
        LEGACY_CWT_CLAIMS,
        new Map<CborValue, CborValue>([
          [1, "conserver"],
          [2, "tel:+15551234567"],
        ]),
      ],
      [-6800, -16],
      [-6804, new Map<CborValue, CborValue>([["vcon_operation", "vcon_created"]])],
    ]);
    const statement = signSign1(
      { protectedHeader, payload: new TextEncoder().encode("abc:vcon_created") },
      deterministicSigner,
    );
    const { receipt } = await registerPending("/entries", statement);
    const v = verifyStatement(statement, {
      issuerKeys: await issuerKeys(),
      serviceKeys: await serviceKeys(),
      receipts: [await bytes(receipt)],
    });
    expect(v).toMatchObject({ ok: true, issuer: "conserver" });
    // A claims map nowhere: refused.
    protectedHeader.delete(LEGACY_CWT_CLAIMS);
    const none = await s.api(
      "/entries",
      cose(signSign1({ protectedHeader, payload: new Uint8Array([1]) }, deterministicSigner)),
    );
    expect(none.status).toBe(400);
    expect((decodeCbor(await bytes(none)) as Map<number, string>).get(-2)).toMatch(/issuer/);
  });

  it("refuses an untrusted issuer with the draft's problem details, and a closed log with 401", async () => {
    const untrusted = eventToStatement(
      template(3),
      { issuer: "https://x.example", kid: "unknown-key" },
      deterministicSigner,
    );
    const refused = await s.api("/entries", cose(untrusted));
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toBe("application/concise-problem-details+cbor");
    const p = decodeCbor(await bytes(refused)) as Map<CborValue, CborValue>;
    expect(p.get(-4)).toBe(400);
    expect(p.get("type")).toBe("urn:ietf:params:scitt:error:signed-statement:rejected");
    expect(p.get(-2)).toMatch(/not trusted/);
    // Tenancy B's log is closed: no registration without a token (CBOR or JSON problem details).
    const closed = await s.api(`/tenants/${tenantB}/entries`, cose(statementOf(4)));
    expect(closed.status).toBe(401);
    expect(closed.headers.get("www-authenticate")).toBe("Bearer");
    const problemBytes = await bytes(closed);
    expect((decodeCbor(problemBytes) as Map<number, string>).get(-2)).toMatch(/requires a bearer token/);
    // A log that does not exist answers exactly as a closed one.
    const nowhere = await s.api(`/tenants/${randomUUID()}/entries`, cose(statementOf(4)));
    expect(nowhere.status).toBe(401);
    expect(Buffer.from(await bytes(nowhere)).equals(Buffer.from(problemBytes))).toBe(true);
    const json = await s.api(
      `/tenants/${tenantB}/entries`,
      cose(statementOf(4), { accept: "application/json" }),
    );
    expect(json.headers.get("content-type")).toContain("application/problem+json");
    expect(await json.json()).toMatchObject({ status: 401, title: "Registration requires authentication" });
    // A token registers only in its own tenancy's log.
    const cross = await s.api(`/tenants/${tenantB}/entries`, {
      ...cose(statementOf(4)),
      headers: { "content-type": "application/cose", authorization: `Bearer ${tokenA}` },
    });
    expect(cross.status).toBe(403);
  });

  it("opens a tenancy's log by its policy, with its rate limit", async () => {
    const put = await s.api("/archivist/v1/scitt/registration-policy", {
      method: "PUT",
      token: tokenB,
      json: { open: true, requests_per_second: 1 },
    });
    expect(await put.json()).toEqual({ open: true, requests_per_second: 1, public_log: false });
    const { receipt } = await registerPending(`/tenants/${tenantB}/entries`, statementOf(5));
    expect(decodeRfc9162Receipt(await bytes(receipt)).subject).toBe(`tenant/${tenantB}`);
    const burst = await Promise.all(
      [6, 7, 8].map((n) => s.api(`/tenants/${tenantB}/entries`, cose(statementOf(n)))),
    );
    const limited = burst.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]?.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(limited[0]?.headers.get("content-type")).toBe("application/concise-problem-details+cbor");
    await s.api("/archivist/v1/scitt/registration-policy", {
      method: "PUT",
      token: tokenB,
      json: { open: false },
    });
    expect((await s.api(`/tenants/${tenantB}/entries`, cose(statementOf(9)))).status).toBe(401);
  });
});

describe("both receipt profiles for every kind of record", () => {
  const cli = (args: string[]) => runCli((a) => verifyCommand.run(a), args);
  const dir = mkdtempSync(join(tmpdir(), "scrapi-verify-"));
  const receiptOf = (path: string, profile: string) =>
    until(async () => {
      const r = await s.api(`${path}?profile=${profile}`, { token: tokenA });
      return r.status === 200 ? bytes(r) : undefined;
    });

  it("asset events, asset-free events with and without event_type, registered statements, and their transparent statements", async () => {
    const keys = await serviceKeys();
    // The relying party's pinned copy of the service's keys: fetched keys are only self-consistent.
    writeFileSync(join(dir, "keys.cbor"), await bytes(await s.api("/.well-known/scitt-keys")));
    const asset = await createAsset(s, tokenA, { arc_display_type: "vcon" });
    const assetEvent = (await (await postEvent(s, tokenA, asset.identity, evidence(template(6)))).json()) as {
      identity: string;
    };
    const typed = (await (
      await s.api("/archivist/v1/events", {
        method: "POST",
        token: tokenA,
        json: { attributes: template(7), trails: ["t"], event_type: "vcon" },
      })
    ).json()) as { identity: string };
    const untyped = (await (
      await s.api("/archivist/v1/events", { method: "POST", token: tokenA, json: { attributes: { k: "v" } } })
    ).json()) as { identity: string };
    const records = [
      {
        read: `/archivist/v2/${assetEvent.identity}`,
        receipt: `/archivist/v1/receipts/${assetEvent.identity}`,
      },
      { read: `/archivist/v1/${typed.identity}`, receipt: `/archivist/v1/receipts/${typed.identity}` },
      { read: `/archivist/v1/${untyped.identity}`, receipt: `/archivist/v1/receipts/${untyped.identity}` },
    ];
    for (const [i, r] of records.entries()) {
      for (const profile of ["mmr", "rfc9162"] as const) {
        const receipt = await receiptOf(r.receipt, profile);
        const record = (await (await s.api(r.read, { token: tokenA })).json()) as Record<string, unknown>;
        const v = verifyRecordReceipt(record, receipt, keys);
        expect(v, `${r.read} ${profile}`).toMatchObject({ ok: true, profile });
        writeFileSync(join(dir, `r${i}.json`), JSON.stringify(record));
        writeFileSync(join(dir, `r${i}-${profile}.cose`), receipt);
        const run = await cli([
          join(dir, `r${i}.json`),
          "--receipt",
          join(dir, `r${i}-${profile}.cose`),
          "--keys",
          join(dir, "keys.cbor"),
        ]);
        expect(run.code, run.out).toBe(0);
        expect(run.out).toContain(`(${profile} receipt`);
        // A changed record no longer verifies in either profile.
        const changed = {
          ...record,
          ...(record.attributes ? { attributes: { k: "changed" } } : { event_attributes: { k: "changed" } }),
        };
        expect(verifyRecordReceipt(changed, receipt, keys).ok).toBe(false);
      }
    }
    // Every transparent statement kind, in both profiles, with the library and the CLI.
    const registered = await registerPending("/entries", statementOf(8));
    const transparents = [
      `/archivist/v2/${assetEvent.identity}/statement?transparent=true`,
      `/archivist/v1/${typed.identity}/statement?transparent=true`,
      `${registered.location}/statement?transparent=true`,
    ];
    writeFileSync(join(dir, "issuer.jwk"), JSON.stringify(vectorPublicKey.jwk));
    for (const [i, path] of transparents.entries())
      for (const profile of ["mmr", "rfc9162"] as const) {
        const t = await until(async () => {
          const r = await s.api(`${path}&profile=${profile}`, { token: tokenA });
          return r.status === 200 ? bytes(r) : undefined;
        });
        const v = verifyStatement(t, { issuerKeys: await issuerKeys(), serviceKeys: keys });
        expect(v, `${path} ${profile}`).toMatchObject({ ok: true, receipts: 1, profiles: [profile] });
        writeFileSync(join(dir, `t${i}-${profile}.cose`), t);
        const run = await cli([
          join(dir, `t${i}-${profile}.cose`),
          "--keys",
          join(dir, "keys.cbor"),
          "--issuer-key",
          `test-key-1=${join(dir, "issuer.jwk")}`,
        ]);
        expect(run.code, run.out).toBe(0);
        expect(run.out).toContain(`(${profile})`);
        // The receipt of another record does not verify for this statement.
        const wrong = await receiptOf(records[2]?.receipt as string, profile);
        const swapped = verifyStatement(t, {
          issuerKeys: await issuerKeys(),
          serviceKeys: keys,
          receipts: [wrong],
        });
        expect(swapped.ok).toBe(false);
      }
  });

  it("serves consistency proofs in both profiles", async () => {
    const rfc = (await (
      await s.api(`/archivist/v1/merklelogs/${publicLog}/consistency?profile=rfc9162&from=2&to=5`)
    ).json()) as { root_from: string; root_to: string; proof: string[] };
    const h = (x: string) => new Uint8Array(Buffer.from(x, "hex"));
    expect(verifyConsistency(2, 5, h(rfc.root_from), h(rfc.root_to), rfc.proof.map(h))).toBe(true);
    expect(verifyConsistency(2, 5, h(rfc.root_to), h(rfc.root_to), rfc.proof.map(h))).toBe(false);
    const mmr = await s.api(`/archivist/v1/merklelogs/${publicLog}/consistency?from=3&to=8`);
    expect(mmr.status).toBe(200);
    const bad = await s.api(`/archivist/v1/merklelogs/${publicLog}/consistency?profile=rfc9162&from=0&to=5`);
    expect(bad.status).toBe(400);
  });
});

describe("a registration that stays pending", () => {
  // No workers: nothing is committed or sealed, so the entry stays pending as long as it is asked.
  let idle: TestService;
  const log = randomUUID();
  beforeAll(async () => {
    idle = await startTestService(
      { ARCHIVIST_SCITT_PUBLIC_LOG: log, ARCHIVIST_NO_WORKERS: "true" },
      {},
      {},
      { a: log },
    );
    await trustVectorKey(idle, await idle.token(idle.a));
  });
  afterAll(() => idle?.stop());

  it("answers 202 with Location and Retry-After to the registration and 204 (no-store) to every poll, never 302/303", async () => {
    const res = await idle.api("/entries", cose(statementOf(1)));
    expect(res.status).toBe(202);
    const location = res.headers.get("location") as string;
    expect(location).toMatch(/^\/entries\/events_[0-9a-f-]{36}$/);
    for (let i = 0; i < 2; i++) {
      const poll = await idle.api(location, { redirect: "manual" });
      expect([poll.status, poll.headers.get("retry-after"), poll.headers.get("cache-control")]).toEqual([
        204,
        "1",
        "no-store",
      ]);
      expect((await poll.arrayBuffer()).byteLength).toBe(0);
    }
  });
});
