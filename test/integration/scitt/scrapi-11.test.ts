import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CborValue, decodeCbor } from "../../../src/formats/cbor/index.js";
import { decodeRfc9162Receipt, publicKeyFromCoseKey } from "../../../src/formats/cose/index.js";
import { verifyStatement } from "../../../src/verify/index.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { trustVectorKey } from "../../helpers/scitt-requests.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { vectorPublicKey, vectorStatement } from "../../helpers/vector-key.js";

/*
 * SCRAPI -11 client flows: 201 with the receipt; 202 → 204 (no-store) → 200 at one stable
 * Location; 404 with concise problem details for an entry that is not registered; keys by kid.
 * And the endpoints -11 calls legacy, still answering and saying so.
 */
let sync: TestService;
let idle: TestService;
const logSync = randomUUID();
const logIdle = randomUUID();

beforeAll(async () => {
  // Waits long enough for the seal: every registration is answered 201.
  sync = await startTestService(
    { ARCHIVIST_SCITT_PUBLIC_LOG: logSync, ARCHIVIST_SCRAPI_WAIT_MS: "30000" },
    {},
    {},
    { a: logSync },
  );
  // No workers: every registration is pending until the test runs them once.
  idle = await startTestService(
    { ARCHIVIST_SCITT_PUBLIC_LOG: logIdle, ARCHIVIST_NO_WORKERS: "true", ARCHIVIST_SCRAPI_WAIT_MS: "0" },
    {},
    {},
    { a: logIdle },
  );
  await trustVectorKey(sync, await sync.token(sync.a));
  await trustVectorKey(idle, await idle.token(idle.a));
}, 120_000);
afterAll(async () => {
  await sync?.stop();
  await idle?.stop();
});

const statementOf = (n: number) => vectorStatement(n);
const cose = (body: Uint8Array) => ({
  method: "POST",
  headers: { "content-type": "application/cose" },
  body: Buffer.from(body),
  redirect: "manual" as const,
});
const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());

function verifies(s: TestService, statement: Uint8Array, receipt: Uint8Array) {
  return s
    .api("/.well-known/scitt-keys")
    .then(bytes)
    .then(
      (set) =>
        verifyStatement(statement, {
          issuerKeys: new Map([["test-key-1", vectorPublicKey]]),
          serviceKeys: keysFromKeySet(set),
          receipts: [receipt],
        }).ok,
    );
}

describe("SCRAPI -11 registration", () => {
  it("201: the receipt in the body and a Location that answers the same receipt", async () => {
    const statement = statementOf(1);
    const res = await sync.api("/entries", cose(statement));
    expect(res.status, await res.clone().text()).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/scitt-receipt+cose");
    const location = res.headers.get("location") as string;
    expect(location).toMatch(/^\/entries\/events_[0-9a-f-]{36}$/);
    const receipt = await bytes(res);
    expect(await verifies(sync, statement, receipt)).toBe(true);
    const again = await sync.api(location);
    expect(again.status).toBe(200);
    expect(Buffer.from(await bytes(again)).equals(Buffer.from(receipt))).toBe(true);
  });

  it("202 → 204 (Retry-After, no-store) → 200 at the same Location", async () => {
    const statement = statementOf(2);
    const res = await idle.api("/entries", cose(statement));
    expect(res.status).toBe(202);
    expect(res.headers.get("retry-after")).toBe("1");
    const location = res.headers.get("location") as string;
    expect(location).toMatch(/^\/entries\/events_[0-9a-f-]{36}$/);
    const pending = await idle.api(location, { redirect: "manual" });
    expect([
      pending.status,
      pending.headers.get("retry-after"),
      pending.headers.get("cache-control"),
    ]).toEqual([204, "1", "no-store"]);
    await idle.service.workers.flush();
    const done = await idle.api(location, { redirect: "manual" });
    expect(done.status).toBe(200);
    expect(done.headers.get("content-type")).toBe("application/scitt-receipt+cose");
    const receipt = await bytes(done);
    expect(await verifies(idle, statement, receipt)).toBe(true);
  });

  it("404 with concise problem details for an entry that is not registered (a refused registration leaves none)", async () => {
    const refused = await idle.api("/entries", cose(new Uint8Array([1, 2, 3])));
    expect(refused.status).toBe(400);
    expect(refused.headers.get("location")).toBeNull();
    for (const id of [`events_${randomUUID()}`, "not-an-entry"]) {
      const res = await idle.api(`/entries/${id}`, { redirect: "manual" });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/concise-problem-details+cbor");
      const problem = decodeCbor(await bytes(res)) as Map<CborValue, CborValue>;
      expect(problem.get(-4)).toBe(404);
    }
  });
});

describe("SCRAPI -11 keys", () => {
  it("serves the key set and each key by kid as application/cbor, or the COSE key types when asked", async () => {
    const set = await idle.api("/.well-known/scitt-keys", { headers: { accept: "application/cbor" } });
    expect(set.headers.get("content-type")).toBe("application/cbor");
    const keys = keysFromKeySet(await bytes(set));
    const named = await idle.api("/.well-known/scitt-keys", {
      headers: { accept: "application/cose-key-set" },
    });
    expect(named.headers.get("content-type")).toBe("application/cose-key-set");
    for (const [kid, publicKey] of keys) {
      const one = await idle.api(`/.well-known/scitt-keys/${encodeURIComponent(kid)}`, {
        headers: { accept: "application/cbor" },
      });
      expect(one.status).toBe(200);
      expect(one.headers.get("content-type")).toBe("application/cbor");
      const key = publicKeyFromCoseKey(decodeCbor(await bytes(one)) as Map<CborValue, CborValue>);
      expect(key?.kid).toBe(kid);
      expect(key?.publicKey.jwk).toEqual(publicKey.jwk);
    }
    const missing = await idle.api("/.well-known/scitt-keys/no-such-kid");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toContain("application/concise-problem-details+cbor");
  });
});

describe("endpoints SCRAPI -11 calls legacy", () => {
  const deprecated = (r: Response, successor: RegExp) => {
    expect(r.headers.get("deprecation")).toMatch(/^@\d+$/);
    expect(r.headers.get("link")).toMatch(successor);
  };

  it("the transparency configuration still answers, and says so", async () => {
    const res = await idle.api("/.well-known/transparency-configuration", {
      headers: { accept: "application/json" },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { registration_endpoint: string }).registration_endpoint).toBe(
      `${idle.url}/entries`,
    );
    deprecated(res, /^<\/\.well-known\/scitt-keys>; rel="successor-version"$/);
  });

  it("the DataTrails-form operations and /entries/{id}/receipt still answer (202 then 200), and say so", async () => {
    const token = await idle.token(idle.a);
    // An entry SCRAPI registered (DataTrails' form registers public asset events, which SCRAPI's
    // routes do not serve): the one a successor is named for.
    const posted = await idle.api("/entries", {
      ...cose(statementOf(3)),
      headers: { "content-type": "application/cose", authorization: `Bearer ${token}` },
    });
    expect(posted.status).toBe(202);
    const operationID = (posted.headers.get("location") ?? "").split("/").pop() as string;
    const json = { headers: { accept: "application/json" } };
    const running = await idle.api(`/archivist/v1/publicscitt/operations/${operationID}`, json);
    expect(running.status).toBe(202);
    deprecated(running, new RegExp(`^</entries/${operationID}\\?profile=mmr>; rel="successor-version"$`));
    const waiting = await idle.api(`/archivist/v1/publicscitt/entries/${operationID}/receipt`, json);
    expect(waiting.status).toBe(202);
    await idle.service.workers.flush();
    const done = await idle.api(`/archivist/v1/publicscitt/operations/${operationID}`, json);
    expect(await done.json()).toMatchObject({ status: "succeeded", entryID: operationID });
    const receipt = await idle.api(`/archivist/v1/publicscitt/entries/${operationID}/receipt`);
    expect(receipt.status).toBe(200);
    deprecated(receipt, /rel="successor-version"/);
    const r = await bytes(receipt);
    // The DataTrails route serves the MMR profile; its successor by query gives the same receipt.
    const successor = await idle.api(`/entries/${operationID}?profile=mmr`, {
      headers: { accept: "application/cose" },
    });
    expect(Buffer.from(await bytes(successor)).equals(Buffer.from(r))).toBe(true);
    expect(() => decodeRfc9162Receipt(r)).toThrow();
  });
});
