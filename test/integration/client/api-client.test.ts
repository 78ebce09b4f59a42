import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, ApiRefusedError, TokenSource } from "../../../src/client/index.js";
import { until } from "../../helpers/poll.js";
import { statementOf, trustVectorKey } from "../../helpers/scitt-requests.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { vectorPublicKey } from "../../helpers/vector-key.js";

// The typed client against the real service over HTTP, and what it fetches checked by the
// package's verifier as another program imports it (by name, from the build).
type VerifyEntry = typeof import("../../../src/verify/index.js");

let s: TestService;
let client: ApiClient;
let verify: VerifyEntry;

beforeAll(async () => {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  execFileSync(process.execPath, ["scripts/ensure-built.mjs"], { cwd: root, stdio: "inherit" });
  // A specifier TypeScript does not resolve: the entry's types come from the source above.
  const entry: string = "vcon-archivist/verify";
  verify = (await import(entry)) as VerifyEntry;
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100", ARCHIVIST_SCRAPI_WAIT_MS: "0" });
  client = new ApiClient({
    url: s.url,
    tokens: new TokenSource({ url: s.url, clientId: s.a.clientId, clientSecret: s.a.clientSecret }),
  });
}, 180_000);
afterAll(() => s?.stop());

/** Polls `probe`, letting the service's workers commit and seal between tries. */
const settled = <T>(probe: () => Promise<T | undefined>) =>
  until(async () => {
    await s.service.workers.flush();
    return probe();
  }, 30_000);

describe("the typed API client", () => {
  it("creates an asset and events, pages them with a count, and fetches a receipt that verifies", async () => {
    const asset = await client.createAsset({
      behaviours: ["RecordEvidence"],
      attributes: { arc_display_type: "client-test", arc_display_name: "typed client" },
    });
    expect(asset.identity).toMatch(/^assets\//);
    const event = await client.createAssetEvent(asset.identity, {
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { step: "one" },
    });
    await client.createAssetEvent(asset.identity, {
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { step: "two" },
    });

    // The asset's NewAsset event and the two Records, one a page.
    const first = await client.listAssetEvents(asset.identity, { page_size: "1" }, { count: true });
    expect(first.total).toBe(3);
    expect(first.items).toHaveLength(1);
    expect(first.nextPageToken).not.toBe("");
    const second = await client.listAssetEvents(asset.identity, { page_token: first.nextPageToken });
    expect(second.items).toHaveLength(1);
    expect(second.items[0]?.identity).not.toBe(first.items[0]?.identity);
    const found = await client.listAssetEvents(
      "-",
      { "event_attributes.step": ["one", "two"] },
      { count: true },
    );
    expect(found.total).toBe(2);

    const keys = verify.keysFromKeySet(await client.keySet());
    for (const profile of ["mmr", "rfc9162"] as const) {
      const receipt = await settled(() => client.receipt(event.identity, profile));
      const record = await client.getAssetEvent(event.identity);
      expect(verify.verifyRecordReceipt(record, receipt, keys)).toMatchObject({ ok: true, profile });
      const tampered = { ...record, event_attributes: { step: "three" } };
      expect(verify.verifyRecordReceipt(tampered, receipt, keys).ok).toBe(false);
    }
  });

  it("records events on several assets in one request, each answered as its own createAssetEvent", async () => {
    const [one, two] = await Promise.all(
      ["one", "two"].map((n) => client.createAsset({ attributes: { arc_display_type: "client-batch", n } })),
    );
    const event = (step: string) => ({
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { batch_step: step },
    });
    const { responses } = await client.createAssetEvents({
      requests: [
        { asset_identity: one?.identity as string, event: event("a") },
        { asset_identity: "assets/00000000-0000-4000-8000-000000000000", event: event("b") },
        { asset_identity: two?.identity as string, event: event("c") },
      ],
    });
    const [a, missing, c] = responses;
    expect(a && "identity" in a && a.asset_identity).toBe(one?.identity);
    expect(missing && "error" in missing && missing.error).toMatchObject({ status: 404, code: 5 });
    expect(c && "identity" in c && (await client.getAssetEvent(c.identity)).event_attributes).toEqual({
      batch_step: "c",
    });
  });

  it("records an asset-free event, finds it, and its receipt verifies", async () => {
    const made = await client.createEvent({
      attributes: { note: "asset-free" },
      trails: ["client://test"],
      event_type: "client_test",
    });
    expect(made.identity).toMatch(/^events\//);
    const searched = await client.searchEvents({ filter: "event_type eq 'client_test'" });
    expect(searched.events.map((e) => e.identity)).toContain(made.identity);
    expect(searched.total).toBe(1);
    const receipt = await settled(() => client.receipt(made.identity));
    const record = await client.getEvent(made.identity);
    const keys = verify.keysFromKeySet(await client.keySet());
    expect(verify.verifyRecordReceipt(record, receipt, keys).ok).toBe(true);
  });

  it("registers a SCITT statement whose transparent form verifies", async () => {
    const token = await s.token(s.a);
    await trustVectorKey(s, token);
    const statement = statementOf(77);
    const { entryId } = await client.registerStatement(statement);
    expect(entryId).not.toBe("");
    const receipt = await settled(() => client.entryReceipt(entryId));
    expect(receipt.length).toBeGreaterThan(0);
    const transparent = await client.entryStatement(entryId, { transparent: true });
    const keys = verify.keysFromKeySet(await client.keySet());
    const verdict = verify.verifyStatement(transparent, {
      issuerKeys: new Map([["test-key-1", vectorPublicKey]]),
      serviceKeys: keys,
    });
    expect(verdict).toMatchObject({ ok: true, receipts: 1 });
  });

  it("uploads a blob, and reports a refusal with its status", async () => {
    const blob = await client.uploadBlob({
      bytes: new TextEncoder().encode("hello from the client\n"),
      filename: "hello.txt",
      mimeType: "text/plain",
    });
    expect(blob.identity).toMatch(/^blobs\//);
    expect(blob.size).toBe(22);
    const missing = client.getAsset("00000000-0000-4000-8000-000000000000");
    await expect(missing).rejects.toBeInstanceOf(ApiRefusedError);
    await expect(missing).rejects.toMatchObject({ status: 404 });
  });
});
