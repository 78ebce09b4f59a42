import { gzipSync } from "node:zlib";
import type { RequestTemplate } from "../load-spec.js";
import { type Phase, reportPhase, runPhase } from "../phase.js";
import { createAsset } from "../records.js";
import type { Scenario } from "../scenario.js";
import { x5chainFlood } from "./x5chain-flood.js";

/** What a hostile client sends, none of it accepted: bombs, broken uploads, forged tokens, huge numbers. */
function hostileRequests(token: string, asset: string): RequestTemplate[] {
  const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20)).toString("base64");
  const truncated = Buffer.from(
    '--B\r\ncontent-disposition: form-data; name="file"; filename="x"\r\n\r\nhel',
  ).toString("base64");
  const json = { "content-type": "application/json" };
  const junk = { authorization: "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln" };
  const big = "99999999999999999999";
  return [
    // A 200 MB gzip bomb from a caller without a valid token: refused before its body is read.
    {
      method: "POST",
      path: "/archivist/v2/assets",
      headers: { ...json, ...junk, "content-encoding": "gzip" },
      bodyBase64: bomb,
    },
    // A truncated upload from a caller with a token: busboy's error is a 400.
    {
      method: "POST",
      path: "/archivist/v1/blobs",
      headers: { authorization: `Bearer ${token}`, "content-type": "multipart/form-data; boundary=B" },
      bodyBase64: truncated,
    },
    { method: "GET", path: `/archivist/v1/merklelogs/00000000-0000-4000-8000-000000000001/entries/${big}` },
    {
      method: "GET",
      path: `/archivist/v1/merklelogs/00000000-0000-4000-8000-000000000001/consistency?from=1&to=3`,
    },
    {
      method: "GET",
      path: `/archivist/v2/assets?page_token=eyJ4IjoxfQ.AAAAAAAAAAAAAAAAAAAAAA`,
      headers: { authorization: `Bearer ${token}` },
    },
    { method: "GET", path: `/archivist/v2/${asset}`, headers: junk },
    {
      method: "POST",
      path: "/archivist/iam/v1/appidp/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_id=00000000-0000-4000-8000-000000000002&client_secret=guess{{n}}",
    },
    {
      method: "POST",
      path: "/archivist/v2/assets",
      headers: { authorization: `Bearer ${token}`, ...json },
      body: "null",
    },
  ];
}

/** The tenancy's uuid, and its log opened to registration by signature (no token). */
async function openLog(origin: string, token: string): Promise<string> {
  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const keys = (await (await fetch(`${origin}/archivist/v1/scitt/keys`, { headers: auth })).json()) as {
    issuer: string;
  };
  const res = await fetch(`${origin}/archivist/v1/scitt/registration-policy`, {
    method: "PUT",
    headers: auth,
    // The flood meets the check, not the log's own rate.
    body: JSON.stringify({ open: true, requests_per_second: 10_000 }),
  });
  if (!res.ok) throw new Error(`opening the log answered ${res.status}`);
  return keys.issuer.split("/tenant/")[1] as string;
}

/**
 * `hostile`: benign throughput alone, then the same benign load while a hostile client sends
 * refused requests at a fixed rate. The row to watch is the ratio of the two (within 10 %).
 */
export const hostile: Scenario = {
  name: "hostile",
  async run(ctx) {
    const d = await ctx.service();
    const token = await d.token();
    const asset = await createAsset(d, token, "hostile");
    const auth = { authorization: `Bearer ${token}` };
    // Reads: their rate is the server's CPU, which is what a hostile client would take away
    // (a write's rate is mostly its commit's wait).
    const benign: RequestTemplate[] = [
      { method: "GET", path: `/archivist/v2/${asset}`, headers: auth },
      { method: "GET", path: "/archivist/v2/assets?page_size=10", headers: auth },
    ];
    const concurrency = 8;
    const alone = await runPhase(ctx, d, { label: "benign alone", requests: benign, concurrency });
    const hostileRate = 100;
    const [mixed, attack]: [Phase, Phase] = await Promise.all([
      runPhase(ctx, d, { label: "benign under attack", requests: benign, concurrency }),
      runPhase(ctx, d, {
        label: "hostile",
        requests: hostileRequests(token, asset),
        rate: hostileRate,
        concurrency: 64,
        connections: 16,
        // Every answer is a refusal; a 5xx or a dropped connection is what counts as an error.
        okStatus: [400, 401, 404, 408, 413, 429],
      }),
    ]);
    reportPhase(ctx, "hostile", "benign alone", alone, "req/s");
    reportPhase(ctx, "hostile", "benign under attack", mixed, "req/s");
    ctx.results.add(
      "hostile",
      "benign under attack / alone",
      mixed.result.throughput,
      "req/s",
      { value: alone.result.throughput, label: "benign alone" },
      "must stay ≥ 0.90",
    );
    reportPhase(ctx, "hostile", "hostile refused", attack, "req/s", {
      rate: { value: hostileRate, label: "offered" },
    });

    // Unauthenticated x5chain floods at an open log (issue 31): ~1 MiB statements of ~2,000
    // certificates each, refused by the chain's bound before any is parsed.
    const tenant = await openLog(d.origin, token);
    const floodRate = 20;
    const [underFlood, flood]: [Phase, Phase] = await Promise.all([
      runPhase(ctx, d, { label: "benign under x5chain flood", requests: benign, concurrency }),
      runPhase(ctx, d, {
        label: "x5chain flood",
        requests: [
          {
            method: "POST",
            path: `/tenants/${tenant}/entries`,
            headers: { "content-type": "application/cose" },
            bodyBase64: Buffer.from(x5chainFlood()).toString("base64"),
          },
        ],
        rate: floodRate,
        concurrency: 32,
        connections: 8,
        okStatus: [400],
      }),
    ]);
    reportPhase(ctx, "hostile", "benign under x5chain flood", underFlood, "req/s");
    ctx.results.add(
      "hostile",
      "benign under x5chain flood / alone",
      underFlood.result.throughput,
      "req/s",
      { value: alone.result.throughput, label: "benign alone" },
      "must stay ≥ 0.90",
    );
    reportPhase(ctx, "hostile", "x5chain flood refused", flood, "req/s", {
      rate: { value: floodRate, label: "offered" },
    });
  },
};
