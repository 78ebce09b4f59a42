import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CborValue, decodeCbor } from "../../../src/formats/cbor/index.js";
import { decodeReceipt, verifyReceipt } from "../../../src/formats/cose/index.js";
import { ecJwk, publicKeyFromJwk } from "../../../src/formats/crypto/public-key.js";
import { leafPreimage } from "../../helpers/leaf-preimage.js";
import { statementOf, trustVectorKey } from "../../helpers/scitt-requests.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { vectorPublicKey } from "../../helpers/vector-key.js";

/*
 * The DataTrails-form routes (`/archivist/v1/publicscitt/…`) as DataTrails' own clients use them:
 * their SCITT samples post a statement with no content type and parse CBOR; their SDK's
 * `post_binary` sends `application/octet-stream`; the samples read the entry's event as a public
 * asset event (`assets_<uuid>_events_<uuid>`), recompute DataTrails' v3 leaf from it, and take the
 * receipt's key from its `cnf` claim. A service without workers: sealing is run by the test.
 */
const dt = "/archivist/v1/publicscitt";
let s: TestService;
let token: string;

beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_NO_WORKERS: "true" });
  token = await s.token(s.a);
  await trustVectorKey(s, token);
}, 120_000);
afterAll(() => s?.stop());

const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());
const ENTRY = /^assets_([0-9a-f-]{36})_events_([0-9a-f-]{36})$/;

/** A statement posted as DataTrails' clients post it: `headers` as they send them. */
function post(body: Uint8Array, headers: Record<string, string> = {}) {
  return s.api(`${dt}/entries`, { method: "POST", token, headers, body: Buffer.from(body) });
}

/** The CBOR map an answer carries, keyed by its text keys. */
async function cborMap(r: Response): Promise<Map<CborValue, CborValue>> {
  expect(r.headers.get("content-type")).toBe("application/cbor");
  const m = decodeCbor(await bytes(r));
  expect(m).toBeInstanceOf(Map);
  return m as Map<CborValue, CborValue>;
}

/**
 * Registers `n`'s statement and returns its operation id: as COSE, asking for CBOR, which the
 * form always took, so that each later point is shown on its own.
 */
async function registered(n: number): Promise<string> {
  const res = await post(statementOf(n), { "content-type": "application/cose", accept: "application/cbor" });
  expect(res.status, await res.clone().text()).toBe(200);
  return String((await cborMap(res)).get("OperationID"));
}

describe("DataTrails' form, as DataTrails' clients use it", () => {
  it("registers a statement sent with no content type (the samples) or as application/octet-stream (the SDK's post_binary)", async () => {
    const bare = await post(statementOf(11));
    expect(bare.status, await bare.clone().text()).toBe(200);
    const octets = await post(statementOf(12), { "content-type": "application/octet-stream" });
    expect(octets.status, await octets.clone().text()).toBe(200);
    // Whatever the type says, the bytes must be a COSE_Sign1 statement.
    for (const headers of [{}, { "content-type": "application/octet-stream" }] as Record<string, string>[]) {
      const junk = await post(new Uint8Array([1, 2, 3]), headers);
      expect(junk.status).toBe(400);
      expect(((await junk.json()) as { detail: string }).detail.length).toBeGreaterThan(5);
    }
    // SCRAPI's own route still takes application/cose only.
    const scrapi = await s.api("/entries", {
      method: "POST",
      token,
      headers: { "content-type": "application/octet-stream" },
      body: Buffer.from(statementOf(13)),
      redirect: "manual",
    });
    expect(scrapi.status).toBeGreaterThanOrEqual(400);
  });

  it("answers a registration in CBOR ({OperationID, Status}) to Accept: */*, and JSON only when asked", async () => {
    const any = await post(statementOf(14), { accept: "*/*" });
    const op = await cborMap(any);
    expect(op.get("Status")).toBe("running");
    expect(String(op.get("OperationID"))).toMatch(ENTRY);
    const json = await post(statementOf(15), { accept: "application/json" });
    expect(json.headers.get("content-type")).toContain("application/json");
    expect(await json.json()).toMatchObject({ status: "running", operationID: expect.stringMatching(ENTRY) });
  });

  it("answers an operation's status in CBOR to Accept: application/cbor: 202 running, then 200 {Status, EntryID}", async () => {
    const id = await registered(16);
    const running = await s.api(`${dt}/operations/${id}`, { headers: { accept: "application/cbor" } });
    expect(running.status).toBe(202);
    expect((await cborMap(running)).get("Status")).toBe("running");
    await s.service.workers.flush();
    const done = await s.api(`${dt}/operations/${id}`, { headers: { accept: "application/cbor" } });
    expect(done.status).toBe(200);
    const status = await cborMap(done);
    expect(status.get("Status")).toBe("succeeded");
    expect(status.get("EntryID")).toBe(id);
    const asJson = await s.api(`${dt}/operations/${id}`, { headers: { accept: "application/json" } });
    expect(await asJson.json()).toMatchObject({ Status: "succeeded", EntryID: id });
  });

  it("names the entry assets_<uuid>_events_<uuid>, a public asset event whose record recomputes the receipt's leaf (DataTrails' v3)", async () => {
    const statement = statementOf(17);
    const id = await registered(17);
    const [, asset, event] = ENTRY.exec(id) ?? [];
    expect(asset && event).toBeTruthy();
    await s.service.workers.flush();
    // Read without a token, where the samples read it.
    const pub = await s.api(`/archivist/v2/publicassets/${asset}/events/${event}`);
    expect(pub.status, await pub.clone().text()).toBe(200);
    const record = (await pub.json()) as Record<string, unknown> & {
      identity: string;
      event_attributes: Record<string, string>;
      merklelog_entry: { commit: { idtimestamp: string } };
    };
    expect(record.identity).toBe(`publicassets/${asset}/events/${event}`);
    expect(record.merklelog_entry.commit.idtimestamp).toMatch(/^[0-9a-f]{18}$/);
    expect(Buffer.from(record.event_attributes.signed_statement as string, "base64").equals(statement)).toBe(
      true,
    );
    const served = await s.api(`${dt}/entries/${id}`);
    expect(Buffer.from(await bytes(served)).equals(Buffer.from(statement))).toBe(true);
    // The leaf as DataTrails' samples compute it: SHA-256(0x00 ‖ idtimestamp ‖ bencode(v3 fields)).
    const leaf = createHash("sha256").update(leafPreimage(record)).digest();
    const receipt = await bytes(await s.api(`${dt}/entries/${id}/receipt`));
    const info = decodeReceipt(receipt);
    const jwks = (await (await s.api("/jwks")).json()) as { keys: Array<{ kid: string }> };
    const sealKey = publicKeyFromJwk(ecJwk(jwks.keys.find((k) => k.kid === info.kid)));
    expect(verifyReceipt(receipt, new Uint8Array(leaf), sealKey).ok).toBe(true);
  });

  it("carries the receipt's key in its cnf claim; a verifier that pinned another refuses the receipt", async () => {
    const id = await registered(18);
    await s.service.workers.flush();
    const receipt = await bytes(await s.api(`${dt}/entries/${id}/receipt`));
    const info = decodeReceipt(receipt);
    const jwks = (await (await s.api("/jwks")).json()) as {
      keys: Array<{ kid: string; x: string; y: string }>;
    };
    const seal = jwks.keys.find((k) => k.kid === info.kid);
    expect(info.carriedKey).toMatchObject({ kty: "EC", crv: "P-256", x: seal?.x, y: seal?.y });
    const [, asset, event] = ENTRY.exec(id) ?? [];
    const record = (await (
      await s.api(`/archivist/v2/publicassets/${asset}/events/${event}`)
    ).json()) as Record<string, unknown>;
    const leaf = new Uint8Array(createHash("sha256").update(leafPreimage(record)).digest());
    expect(verifyReceipt(receipt, leaf, vectorPublicKey)).toEqual({
      ok: false,
      reason: expect.stringMatching(/cnf/),
    });
  });
});
