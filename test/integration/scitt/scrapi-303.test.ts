import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CborValue, decodeCbor } from "../../../src/formats/cbor/index.js";
import { verifyStatement } from "../../../src/verify/index.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { trustVectorKey } from "../../helpers/scitt-requests.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { vectorPublicKey, vectorStatement } from "../../helpers/vector-key.js";

/*
 * The older drafts' flow that ARCHIVIST_SCRAPI_PENDING_STATUS=303 keeps for clients written
 * against them: POST /entries → 303 to the registration's operation; poll it (202 while
 * running) until 200 names the `entryID`; then GET /entries/{entryID} with
 * `Accept: application/cose` for the receipt. (vcon-server's scitt link and storage backend
 * name this flow but cannot take it: Python requests follows the 303 itself, so they see the
 * operation's 202 and stop. They need the 201 that the default wait gives: docs/standards.md.)
 */
let s: TestService;
const log = randomUUID();
const otherLog = randomUUID();
beforeAll(async () => {
  s = await startTestService(
    {
      ARCHIVIST_SCITT_PUBLIC_LOG: log,
      ARCHIVIST_NO_WORKERS: "true",
      ARCHIVIST_SCRAPI_WAIT_MS: "0",
      ARCHIVIST_SCRAPI_PENDING_STATUS: "303",
    },
    {},
    {},
    { a: log, b: otherLog },
  );
  await trustVectorKey(s, await s.token(s.a));
}, 120_000);
afterAll(() => s?.stop());

const statement = (n: number) =>
  vectorStatement(n, { subject: `tel:+1555000${String(n).padStart(4, "0")}`, issuer: "conserver" });
/** Registers a statement as a client that does not follow redirects. */
const register = (signed: Uint8Array) =>
  s.api("/entries", {
    method: "POST",
    headers: { "content-type": "application/cose" },
    body: Buffer.from(signed),
    redirect: "manual",
  });
const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());

describe("ARCHIVIST_SCRAPI_PENDING_STATUS=303: the older drafts' operation flow", () => {
  it("303 to the operation, 202 while running, 200 naming the entry, then the receipt", async () => {
    const signed = statement(1);
    const posted = await register(signed);
    expect(posted.status).toBe(303);
    const location = posted.headers.get("location") as string;
    expect(location).toMatch(/^\/operations\/events_[0-9a-f-]{36}$/);

    const running = await s.api(location, { headers: { accept: "*/*" }, redirect: "manual" });
    expect(running.status).toBe(202);
    expect(running.headers.get("retry-after")).toBe("1");
    expect(running.headers.get("cache-control")).toBe("no-store");
    expect(running.headers.get("deprecation")).toMatch(/^@\d+$/);
    expect(await running.json()).toMatchObject({ status: "running" });

    await s.service.workers.flush();
    const done = await s.api(location, { headers: { accept: "*/*" }, redirect: "manual" });
    expect(done.status).toBe(200);
    const { entryID } = (await done.json()) as { entryID: string };
    expect(location.endsWith(`/${entryID}`)).toBe(true);

    const receipt = await s.api(`/entries/${entryID}`, { headers: { accept: "application/cose" } });
    expect(receipt.status).toBe(200);
    expect(receipt.headers.get("content-type")).toBe("application/cose");
    const set = keysFromKeySet(await bytes(await s.api("/.well-known/scitt-keys")));
    const verdict = verifyStatement(signed, {
      issuerKeys: new Map([["test-key-1", vectorPublicKey]]),
      serviceKeys: set,
      receipts: [await bytes(receipt)],
    });
    expect(verdict.ok).toBe(true);
  });

  it("the operation answers CBOR to a client that asks for it", async () => {
    const posted = await register(statement(2));
    const location = posted.headers.get("location") as string;
    await s.service.workers.flush();
    const done = await s.api(location, { headers: { accept: "application/cbor" } });
    expect(done.headers.get("content-type")).toBe("application/cbor");
    const body = decodeCbor(await bytes(done)) as Map<CborValue, CborValue>;
    expect(body.get("status")).toBe("succeeded");
    expect(location.endsWith(`/${body.get("entryID") as string}`)).toBe(true);
  });

  it("an operation that was never registered is 404 with concise problem details", async () => {
    const res = await s.api(`/operations/events_${randomUUID()}`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/concise-problem-details+cbor");
  });

  it("a tenancy's log has its own operations, and does not serve another log's", async () => {
    const posted = await register(statement(3));
    const id = (posted.headers.get("location") as string).split("/").pop();
    // The other log is closed: to a caller without a token it answers 401 for any id, one it
    // holds or not, so this one's is not told apart either (issue 55).
    const other = await s.api(`/tenants/${otherLog}/operations/${id}`);
    expect(other.status).toBe(401);
    const own = await s.api(`/tenants/${log}/operations/${id}`);
    expect(own.status).toBe(202);
  });
});
