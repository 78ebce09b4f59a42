import { afterEach, describe, expect, it, vi } from "vitest";
import { receiptBatch } from "../../../src/web/receipt-batches.js";
import type { Prefetched } from "../../../src/web/worker-protocol.js";

const A = "assets/11111111-1111-4111-8111-111111111111/events/22222222-2222-4222-8222-222222222222";
const P = "publicassets/33333333-3333-4333-8333-333333333333/events/44444444-4444-4444-8444-444444444444";
const F = "events/55555555-5555-4555-8555-555555555555";
const b64 = (...b: number[]) => Buffer.from(b).toString("base64");

type Asked = { url: string; auth: string | null; body: { profile: string; records: string[] } };

/** A fetch answering each profile's batch with `answer(profile)`, recording what it was asked. */
function stubFetch(answer: (profile: string) => { status: number; body?: unknown }): Asked[] {
  const asked: Asked[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    const body = JSON.parse(String(init.body)) as Asked["body"];
    asked.push({ url, auth: new Headers(init.headers).get("authorization"), body });
    const a = answer(body.profile);
    return new Response(JSON.stringify(a.body ?? {}), { status: a.status });
  });
  return asked;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("receiptBatch", () => {
  it("asks both profiles with the tab's token and holds only the receipts given for records asked", async () => {
    const asked = stubFetch((profile) => ({
      status: 200,
      body: {
        receipts: [
          { record: A, status: 200, receipt: b64(profile === "mmr" ? 1 : 2) },
          { record: P, status: 200, receipt: b64(3) },
          { record: F, status: 409 },
          // Never asked: an answer never stands for a record outside the batch.
          { record: "events/66666666-6666-4666-8666-666666666666", status: 200, receipt: b64(9) },
        ],
      },
    }));
    const into: Prefetched = {};
    await receiptBatch("https://svc", "tok", [A, P, F], into);
    expect(asked.map((a) => [a.url, a.auth, a.body.profile])).toEqual([
      ["https://svc/archivist/v1/receipts:batch", "Bearer tok", "mmr"],
      ["https://svc/archivist/v1/receipts:batch", "Bearer tok", "rfc9162"],
    ]);
    expect(asked[0]?.body.records).toEqual([A, P, F]);
    // A public asset's events are held under the receipt route's name of them (assets/…).
    expect(into).toEqual({
      [A]: { mmr: Uint8Array.of(1), rfc9162: Uint8Array.of(2) },
      [P.replace("publicassets/", "assets/")]: { mmr: Uint8Array.of(3), rfc9162: Uint8Array.of(3) },
    });
  });

  it("holds nothing from a batch the service refused or could not answer (each record is then looked up alone)", async () => {
    stubFetch((profile) => (profile === "mmr" ? { status: 404 } : { status: 200, body: { receipts: "no" } }));
    const into: Prefetched = {};
    await receiptBatch("https://svc", "tok", [A], into);
    expect(into).toEqual({});
    vi.stubGlobal("fetch", () => Promise.reject(new TypeError("network")));
    await receiptBatch("https://svc", "tok", [A], into);
    expect(into).toEqual({});
  });
});
