import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IndexLookup } from "../../../src/formats/vindex/lookup-format.js";
import { type BundleReport, type EvidenceBundle, verifyBundle } from "../../../src/verify/index.js";
import { testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { cose, entryOf, trustVectorKey } from "../../helpers/scitt-requests.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { vectorStatement } from "../../helpers/vector-key.js";

// A registered statement's bytes are a column a database writer can swap for another genuine
// statement. The export ships what is stored, so the service's own verdict must say what any
// verifier of the bundle will: TAMPERED, with the verifier's failure code, naming the entry.

let s: TestService;
let token: string;
let identity: string;
const vcon = crypto.randomUUID();

type Exported = EvidenceBundle & { service_verdict: BundleReport };

async function exported(): Promise<Exported> {
  const res = await s.api(`/archivist/v1/evidence/vcons/${vcon}`, { token });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Exported;
}

const setStored = (statement: Uint8Array) =>
  s.service.ctx.db.query("update events set statement = $2 where id = $1", [
    identity.replace("events/", ""),
    statement,
  ]);

const registered = (n: number) =>
  vectorStatement(n, { subject: `vcon://${vcon}`, operation: "vcon_enhanced" });

beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  token = await s.token(s.a);
  await trustVectorKey(s, token);
  const res = await s.api("/entries", cose(registered(81), token));
  expect([201, 202, 303], await res.clone().text()).toContain(res.status);
  identity = `events/${entryOf(res).replace(/^events_/, "")}`;
  // The statement's record reaches a bundle through the index's lookup of the vCon, and carries
  // both its receipts once sealed and in a checkpoint.
  await until(async () => {
    const key = encodeURIComponent(`vcon://${vcon}`);
    const r = await s.api(`/archivist/v1/vindex/lookup?key=${key}`, { token });
    const lookup = r.status === 200 ? ((await r.json()) as IndexLookup) : undefined;
    if (lookup?.indices.length !== 1) return undefined;
    return (await exported()).records[0]?.receipts.length === 2 ? true : undefined;
  }, 60_000);
}, 120_000);
afterAll(() => s?.stop());

describe(`an export whose stored statement was altered (${testEngine()})`, () => {
  it("carries, for a sound statement, the verdict it always did, with no failures", async () => {
    const b = await exported();
    expect(b.records.map((r) => r.record.identity)).toEqual([identity]);
    expect(b.records[0]?.statement).toBe(Buffer.from(registered(81)).toString("base64"));
    expect(b.service_verdict.code).toBe("self-consistent-unpinned");
    expect(b.service_verdict).not.toHaveProperty("failures");
  });

  it("says TAMPERED, STATEMENT_MISMATCH naming the entry, as the verifier of the shipped bundle does", async () => {
    // Another statement of the same issuer and subject: genuine, decodable, and not the one logged.
    await setStored(registered(82));
    try {
      const b = await exported();
      expect(b.records[0]?.statement).toBe(Buffer.from(registered(82)).toString("base64"));
      const verdict = b.service_verdict;
      expect(verdict.code, verdict.summary).toBe("tampered");
      expect(verdict.failures).toEqual([
        { code: "STATEMENT_MISMATCH", kind: "tampered", detail: expect.stringContaining(identity) },
      ]);
      expect(verdict.summary).toContain(identity);
      const { service_verdict: _, ...bundle } = b;
      expect(verifyBundle(bundle).failures).toEqual(verdict.failures);
    } finally {
      await setStored(registered(81));
    }
    expect((await exported()).service_verdict).not.toHaveProperty("failures");
  });
});
