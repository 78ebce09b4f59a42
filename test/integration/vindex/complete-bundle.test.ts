import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportCommand } from "../../../src/cli/export.js";
import { verifyPublicCommand } from "../../../src/cli/verify-public.js";
import { leafIndexOfMmrIndex } from "../../../src/formats/mmr/index.js";
import { type ApiRecord, commitOf } from "../../../src/formats/record/api-record.js";
import type { IndexLookup } from "../../../src/formats/vindex/lookup-format.js";
import { type BundleSubject, buildBundle } from "../../../src/lookup/evidence/bundle-build.js";
import { buildConsent, type ConsentAnswer } from "../../../src/lookup/evidence/consent-build.js";
import { FetchedEvidence } from "../../../src/lookup/evidence/fetched.js";
import { LookupError, PublicApi } from "../../../src/lookup/public-api.js";
import type { BundleRecord, BundleReport, EvidenceBundle } from "../../../src/verify/index.js";
import { applicationSubject, grantAccess } from "../../helpers/access-policy.js";
import { runCli } from "../../helpers/cli-output.js";
import { testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { createAsset } from "../../helpers/records.js";
import { cose, entryOf, trustVectorKey } from "../../helpers/scitt-requests.js";
import { plainApplication, startTestService, type TestService } from "../../helpers/service.js";
import { untilSealed, vconEvent } from "../../helpers/vcon-event.js";
import { vectorStatement } from "../../helpers/vector-key.js";

// Issue 72's "done when": a vCon's bundle with a revocation among 21 records (asset events, an
// asset-free event, a registered statement) verifies as complete; the same bundle without the
// revocation's record, or the statement's, is TAMPERED naming its log entry; with the statement's
// bytes altered or removed it is TAMPERED; without its index lookup it is not proven complete,
// and POLICY FAILED under a policy requiring completeness.

let s: TestService;
let token: string;
let dir: string;
let keys: string;
let logKey: string;
let bundlePath: string;
let revocation: { identity: string; entry: number };
let registered: { identity: string; entry: number };
let tenantLog: string;
let assetId: string;
const vcon = crypto.randomUUID();
const FIXTURE = new URL("../../../fixtures/bundles/complete-vcon.json", import.meta.url);

const OPERATIONS = [
  ["vcon_created"],
  ["vcon_consent_accepted", "analysis,ai"],
  ...Array.from({ length: 8 }, () => ["vcon_enhanced"]),
  ["vcon_inference_performed", "analysis"],
  ["vcon_consent_revoked", "ai"],
  ...Array.from({ length: 6 }, () => ["vcon_enhanced"]),
  ["vcon_inference_performed", "analysis"],
] as const;

function lifecycle(op: string, i: number, purpose?: string) {
  const e = vconEvent(vcon, op, `2026-02-${String(i + 1).padStart(2, "0")}`);
  return purpose === undefined
    ? e
    : { ...e, event_attributes: { ...e.event_attributes, consent_purpose: purpose } };
}

/** `archivist verify bundle` of a file, as JSON and as text, with further options. */
async function verify(file: string, ...extra: string[]) {
  const args = ["bundle", file, "--keys", keys, ...extra];
  const json = await runCli((a) => verifyPublicCommand.run(a), [...args, "--json"]);
  const text = await runCli((a) => verifyPublicCommand.run(a), args);
  expect(json.code, json.out).toBe(text.code);
  return { code: text.code, text: text.out, report: JSON.parse(json.out) as BundleReport };
}

/** The exported bundle changed by `edit`, written beside it. */
function edited(name: string, edit: (b: EvidenceBundle) => void): string {
  const b = JSON.parse(readFileSync(bundlePath, "utf8")) as EvidenceBundle;
  edit(b);
  const out = join(dir, name);
  writeFileSync(out, JSON.stringify(b));
  return out;
}

/** The route's bundle for `caller`, and the one its own reads make over HTTP, a route at a time. */
async function gatheredBoth(caller: string, subject: BundleSubject) {
  const path = subject.kind === "vcon" ? `vcons/${subject.uuid}` : `assets/${subject.uuid}`;
  const res = await s.api(`/archivist/v1/evidence/${path}`, { token: caller });
  expect(res.status, await res.clone().text()).toBe(200);
  const { service_verdict, ...route } = (await res.json()) as EvidenceBundle & {
    service_verdict: BundleReport;
  };
  const holder = route.subject.holder;
  const reads = await buildBundle(
    new FetchedEvidence(new PublicApi(s.url, { tokens: caller })),
    subject.kind === "vcon" ? { ...subject, holder } : subject,
    new Date(route.created_at),
  );
  // An asset is read as it is at the time of the read: the one field a later read changes.
  reads.assets.forEach((a, i) => {
    (a as { at_time?: unknown }).at_time = (route.assets[i] as { at_time?: unknown } | undefined)?.at_time;
  });
  return { route, reads, verdict: service_verdict };
}

/**
 * The route's bundle for `caller` beside the one its own reads make (`FetchedEvidence`), which
 * the service's in-process reads are held to: read again while they differ, since the anchorer
 * may confirm a record between the two gatherings, until they agree or 30 s have passed.
 */
async function routeAndReads(caller: string, subject: BundleSubject) {
  const end = Date.now() + 30_000;
  for (;;) {
    const both = await gatheredBoth(caller, subject);
    if (JSON.stringify(both.route) === JSON.stringify(both.reads) || Date.now() > end) return both;
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function postAssetFreeEvent(): Promise<string> {
  const res = await s.api("/archivist/v1/events", {
    method: "POST",
    token,
    json: {
      event_type: "vcon_enhanced",
      attributes: { subject: `vcon://${vcon}`, arc_display_type: "vcon_enhanced", note: "asset-free" },
    },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { identity: string }).identity;
}

/** Registers a statement on the vCon (POST /entries): an asset-free event of type scitt_statement. */
async function registerOnVcon(): Promise<string> {
  await trustVectorKey(s, token);
  const statement = vectorStatement(72, { subject: `vcon://${vcon}`, operation: "vcon_enhanced" });
  const res = await s.api("/entries", cose(statement, token));
  expect([201, 202, 303], await res.clone().text()).toContain(res.status);
  return `events/${entryOf(res).replace(/^events_/, "")}`;
}

/** The log entry a record is at, as its commit says. */
async function entryOfRecord(identity: string): Promise<number> {
  const path = identity.startsWith("assets/") ? `/archivist/v2/${identity}` : `/archivist/v1/${identity}`;
  const r = (await (await s.api(path, { token })).json()) as ApiRecord;
  return leafIndexOfMmrIndex(Number(commitOf(r)?.index));
}

beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  token = await s.token(s.a);
  dir = mkdtempSync(join(tmpdir(), "complete-bundle-"));
  const asset = await createAsset(s, token, { arc_display_type: "vcon", team: "complete" });
  tenantLog = asset.tenant_identity;
  assetId = asset.identity;
  for (const [i, [op, purpose]] of OPERATIONS.entries()) {
    const res = await s.api(`/archivist/v2/${asset.identity}/events`, {
      method: "POST",
      token,
      json: lifecycle(op, i, purpose),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    if (op === "vcon_consent_revoked")
      revocation = { identity: ((await res.json()) as { identity: string }).identity, entry: -1 };
  }
  const free = await postAssetFreeEvent();
  registered = { identity: await registerOnVcon(), entry: -1 };
  await untilSealed(s, token, asset.identity);
  // Sealed, and the index revised over every record: 19 asset events, the asset-free one and the
  // registered statement.
  await until(async () => {
    for (const id of [free, registered.identity]) {
      const e = (await (await s.api(`/archivist/v1/${id}`, { token })).json()) as {
        confirmation_status: string;
      };
      if (e.confirmation_status === "STORED") return undefined;
    }
    const r = await s.api(`/archivist/v1/vindex/lookup?key=${encodeURIComponent(`vcon://${vcon}`)}`, {
      token,
    });
    const l = r.status === 200 ? ((await r.json()) as IndexLookup) : undefined;
    return l?.indices.length === 21 ? true : undefined;
  }, 60_000);
  revocation.entry = await entryOfRecord(revocation.identity);
  registered.entry = await entryOfRecord(registered.identity);
  keys = join(dir, "keys.cbor");
  writeFileSync(keys, new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()));
  logKey = join(dir, "log.vkey");
  const tenant = tenantLog.replace("tenant/", "");
  writeFileSync(logKey, await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text());
  bundlePath = join(dir, "bundle.json");
  const exported = await runCli(
    (a) => exportCommand.run(a),
    [`vcon://${vcon}`, "--url", s.url, "--token", token, "--keys", keys, "--out", bundlePath],
  );
  expect(exported.code, exported.out).toBe(0);
  // The unit tests' bundle (test/unit/verify/bundle/completeness.test.ts), made again by
  // WRITE_FIXTURES=1 when vindex/v1 or the bundle's format changes.
  if (process.env.WRITE_FIXTURES === "1" && testEngine() === "pglite") copyFileSync(bundlePath, FIXTURE);
}, 180_000);
afterAll(() => s?.stop());

describe(`a vCon's evidence bundle proven complete by the verifiable index (${testEngine()})`, () => {
  it("carries the index lookup of its key, and verifies as complete as of the lookup's log size", async () => {
    const bundle = JSON.parse(readFileSync(bundlePath, "utf8")) as EvidenceBundle;
    expect(bundle.records).toHaveLength(21);
    const free = bundle.records.filter(({ record }) => String(record.identity).startsWith("events/"));
    expect(free).toHaveLength(2);
    // The registered statement's record carries its statement, and its RFC 9162 receipt is filed
    // under the profile checked with it; no other record carries one.
    const stmt = bundle.records.find(({ record }) => record.identity === registered.identity);
    expect(stmt?.statement).toEqual(expect.any(String));
    expect(stmt?.receipts.map((r) => r.profile)).toEqual(["mmr", "rfc9162-statement"]);
    expect(bundle.records.filter((r) => r.statement !== undefined)).toHaveLength(1);
    const lookup = bundle.index?.[0] as IndexLookup;
    expect(lookup.key).toBe(`vcon://${vcon}`);
    expect(lookup.log).toBe(tenantLog);
    expect(lookup.indices).toContain(revocation.entry);
    expect(lookup.indices).toContain(registered.entry);
    const { code, text, report } = await verify(bundlePath);
    expect(code, text).toBe(0);
    const size = lookup.revision.log_size;
    expect(text).toContain(`completeness: complete as of ${size} log entries of ${tenantLog}`);
    expect(report.completeness).toMatchObject({ complete: true, key: `vcon://${vcon}`, pinned: false });
    expect(report.completeness.logs).toEqual([
      { log: tenantLog, log_size: size, revision: lookup.revision.seq, entries: 21, log_key_pinned: false },
    ]);
    expect(report.not_checked.join("\n")).not.toContain("records may have been left out");
    // Both of the statement's receipts verified, the RFC 9162 one with the statement it carries.
    const checked = report.records.find((r) => r.identity === registered.identity);
    expect(checked?.receipts.map((r) => [r.profile, r.ok])).toEqual([
      ["mmr", true],
      ["rfc9162-statement", true],
    ]);
    expect(checked?.statement?.ok).toBe(true);
  });

  it("is verified with the log's key pinned, and complete under it", async () => {
    const { code, text, report } = await verify(bundlePath, "--log-key", logKey);
    expect(code, text).toBe(0);
    expect(report.code).toBe("verified");
    expect(report.completeness).toMatchObject({ complete: true, pinned: true });
    expect(report.summary).toMatch(/complete as of \d+ log entries of tenant\//);
    expect(report.summary).not.toContain("not one you pinned");
  });

  it("is TAMPERED without the revocation's record, naming its log entry", async () => {
    const cut = edited("without-revocation.json", (b) => {
      b.records = b.records.filter(({ record }) => record.identity !== revocation.identity);
    });
    const { code, text, report } = await verify(cut);
    expect(code, text).toBe(1);
    const named = `log entry ${revocation.entry} of ${tenantLog} is filed under vcon://${vcon} and is not in the bundle`;
    expect(report.summary).toBe(`TAMPERED: ${named}`);
    expect(report.failures).toEqual([{ code: "INDEX_ENTRY_OMITTED", kind: "tampered", detail: named }]);
    expect(report.completeness.complete).toBe(false);
    expect(text).toContain(named);
  });

  it("is TAMPERED without the registered statement's record, naming its log entry", async () => {
    const cut = edited("without-statement-record.json", (b) => {
      b.records = b.records.filter(({ record }) => record.identity !== registered.identity);
    });
    const { code, text, report } = await verify(cut);
    expect(code, text).toBe(1);
    const named = `log entry ${registered.entry} of ${tenantLog} is filed under vcon://${vcon} and is not in the bundle`;
    expect(report.summary).toBe(`TAMPERED: ${named}`);
    expect(report.failures).toEqual([{ code: "INDEX_ENTRY_OMITTED", kind: "tampered", detail: named }]);
  });

  it("is TAMPERED with the statement's bytes altered, and with them removed", async () => {
    const altered = edited("statement-altered.json", (b) => {
      const r = b.records.find(({ record }) => record.identity === registered.identity) as BundleRecord;
      const bytes = Buffer.from(r.statement as string, "base64");
      // A byte of the signature: the statement still decodes, and is another statement.
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0xff;
      r.statement = bytes.toString("base64");
    });
    const a = await verify(altered);
    expect(a.code, a.text).toBe(1);
    expect(a.report.failures.map((f) => f.code)).toEqual(["STATEMENT_MISMATCH"]);
    expect(a.report.summary).toContain(registered.identity);
    expect(a.report.summary).toContain("scitt_statement_sha256");
    const removed = edited("statement-removed.json", (b) => {
      const r = b.records.find(({ record }) => record.identity === registered.identity) as BundleRecord;
      delete r.statement;
    });
    const m = await verify(removed);
    expect(m.code, m.text).toBe(1);
    expect(m.report.failures.map((f) => f.code)).toEqual(["STATEMENT_MISSING"]);
    // Its tree receipt removed too: still the statement the record names is missing.
    const bare = edited("statement-and-receipt-removed.json", (b) => {
      const r = b.records.find(({ record }) => record.identity === registered.identity) as BundleRecord;
      delete r.statement;
      r.receipts = r.receipts.filter((x) => x.profile === "mmr");
    });
    const both = await verify(bare);
    expect(both.code, both.text).toBe(1);
    expect(both.report.failures.map((f) => f.code)).toEqual(["STATEMENT_MISSING"]);
  });

  it("is not proven complete without its index lookup, and POLICY FAILED under `require complete`", async () => {
    const bare = edited("without-index.json", (b) => {
      delete b.index;
    });
    const plain = await verify(bare);
    expect(plain.code, plain.text).toBe(0);
    expect(plain.text).toContain("completeness: not proven complete: the bundle carries no index lookup");
    expect(plain.report.not_checked[0]).toContain("records may have been left out");
    const policy = join(dir, "policy.txt");
    writeFileSync(policy, `log ${readFileSync(logKey, "utf8").trim()}\nrequire complete\n`);
    const required = await verify(bare, "--policy", policy);
    expect(required.code, required.text).toBe(3);
    expect(required.report.failures.map((f) => f.code)).toEqual(["NOT_PROVEN_COMPLETE"]);
    expect(required.report.summary).toBe(
      "POLICY FAILED: require complete: the bundle is not proven complete: the bundle carries no index lookup",
    );
    const complete = await verify(bundlePath, "--policy", policy);
    expect(complete.code, complete.text).toBe(0);
  });

  it("makes its consent report from a complete trail", async () => {
    const { code, text, report } = await verify(bundlePath, "--log-key", logKey, "--report");
    expect(code, text).toBe(0);
    const size = report.completeness.complete ? report.completeness.logs[0]?.log_size : -1;
    expect(text).toContain(`made from a complete trail: complete as of ${size} log entries of ${tenantLog}`);
    expect(text).toMatch(/purpose ai: revoked/);
    const bare = edited("report-without-index.json", (b) => {
      delete b.index;
    });
    const without = await verify(bare, "--report");
    expect(without.text).toContain(
      "made from a trail not proven complete: the bundle carries no index lookup",
    );
  });

  it("proves an asset's bundle complete too, its key placed by a hash", async () => {
    const res = await s.api(`/archivist/v1/evidence/${assetId}`, { token });
    expect(res.status).toBe(200);
    const b = (await res.json()) as EvidenceBundle;
    const lookup = b.index?.[0] as IndexLookup;
    expect(lookup.key).toBe(assetId);
    expect(lookup.vrf_proof).toBeNull();
    // Its creation and its 19 events; the asset-free event is no asset's.
    expect(lookup.indices).toHaveLength(20);
    const file = join(dir, "asset.json");
    writeFileSync(file, JSON.stringify(b));
    const { code, text, report } = await verify(file, "--log-key", logKey);
    expect(code, text).toBe(0);
    expect(report.completeness).toMatchObject({ complete: true, key: assetId, pinned: true });
  });

  it("carries no lookup for a reader that may not read every record of the vCon, and says so", async () => {
    // Granted every asset event of the vCon's asset, not the asset-free event (administrators'):
    // the lookup answers it 404, as for a key with no records, and the export goes on without it.
    const reader = await plainApplication(s, token, { display_name: "reads the asset's events" });
    await grantAccess(s, token, "the vCon's asset", "attributes.team=complete", {
      asset_attributes_read: ["arc_display_type", "team"],
      event_arc_display_type_read: [...new Set(OPERATIONS.map(([op]) => op))],
      behaviours: [],
      event_arc_display_type_write: [],
      asset_attributes_write: [],
      ...applicationSubject(reader.clientId),
    });
    const { route, reads, verdict } = await routeAndReads(reader.token, { kind: "vcon", uuid: vcon });
    expect(route.records).toHaveLength(19);
    expect(route.index).toBeUndefined();
    expect(verdict.summary).toContain("not proven complete: the bundle carries no index lookup");
    // No more than the reader's own reads, route by route, give it: the same bytes.
    expect(JSON.stringify(route)).toBe(JSON.stringify(reads));
  });

  it("gives a narrower reader its own reads' events, attributes and consent, and no more", async () => {
    const narrow = await plainApplication(s, token, { display_name: "reads the vCon's consent" });
    const granted = ["vcon_created", "vcon_consent_accepted", "vcon_consent_revoked"];
    await grantAccess(s, token, "the vCon's consent records", "attributes.team=complete", {
      asset_attributes_read: ["arc_display_type"],
      event_arc_display_type_read: granted,
      behaviours: [],
      event_arc_display_type_write: [],
      asset_attributes_write: [],
      ...applicationSubject(narrow.clientId),
    });
    const { route, reads } = await routeAndReads(narrow.token, { kind: "vcon", uuid: vcon });
    expect(
      route.records.map(({ record }) => (record.event_attributes as Record<string, string>).vcon_operation),
    ).toEqual(granted);
    expect((route.assets[0] as { attributes: Record<string, unknown> }).attributes).toEqual({
      arc_display_type: "vcon",
    });
    expect(route.index).toBeUndefined();
    expect(JSON.stringify(route)).toBe(JSON.stringify(reads));
    // The consent route's answer is the one its own reads derive.
    const consent = await s.api(`/archivist/v1/consent/vcons/${vcon}`, { token: narrow.token });
    expect(consent.status).toBe(200);
    const answer = (await consent.json()) as ConsentAnswer;
    expect(answer.records.map((r) => r.role)).toEqual(["grant", "revocation"]);
    const derived = await buildConsent(
      new FetchedEvidence(new PublicApi(s.url, { tokens: narrow.token })),
      vcon,
      tenantLog,
    );
    expect(answer).toEqual(JSON.parse(JSON.stringify(derived)));
  });

  it("bundles a registered statement the service no longer gives with the refusal, complete, naming what is unchecked", async () => {
    // As if its stored bytes were gone: every read but the statement's as the service answers it.
    const source = new FetchedEvidence(new PublicApi(s.url, { tokens: token }));
    const lost = new Proxy(source, {
      get(target, prop) {
        if (prop === "statement")
          return async () => {
            throw new LookupError("GET /entries/{id}/statement: 404 statement not found", 404);
          };
        const v: unknown = Reflect.get(target, prop, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    const bundle = await buildBundle(lost, { kind: "vcon", uuid: vcon });
    const r = bundle.records.find(({ record }) => record.identity === registered.identity) as BundleRecord;
    expect(r.statement).toBeUndefined();
    expect(r.statement_unavailable).toBe(
      "the service did not give it (404): GET /entries/{id}/statement: 404 statement not found",
    );
    // Only its MMR receipt: its RFC 9162 leaf is the statement's payload hash.
    expect(r.receipts.map((x) => x.profile)).toEqual(["mmr"]);
    expect(bundle.index?.[0]?.indices).toHaveLength(21);
    const file = join(dir, "statement-unavailable.json");
    writeFileSync(file, JSON.stringify(bundle));
    const { code, text, report } = await verify(file, "--log-key", logKey);
    expect(code, text).toBe(0);
    expect(report.failures).toEqual([]);
    expect(report.completeness).toMatchObject({ complete: true, pinned: true });
    expect(report.not_checked).toContain(
      `${registered.identity}: its registered statement, not in the bundle (the exporter: ${r.statement_unavailable}); its content, its issuer's signature and its RFC 9162 leaf`,
    );
    // The same record claiming its statement is unavailable while carrying an rfc9162-statement receipt, or for
    // a record that is no registered statement, is tampered.
    const withReceipt = edited("unavailable-with-receipt.json", (b) => {
      const at = b.records.find(({ record }) => record.identity === registered.identity) as BundleRecord;
      delete at.statement;
      at.statement_unavailable = "lost";
    });
    const w = await verify(withReceipt);
    expect(w.code, w.text).toBe(1);
    expect(w.report.failures.map((f) => f.code)).toEqual(["STATEMENT_MISSING"]);
    const ofOther = edited("unavailable-of-other.json", (b) => {
      (b.records[0] as BundleRecord).statement_unavailable = "lost";
    });
    const o = await verify(ofOther);
    expect(o.code, o.text).toBe(1);
    expect(o.report.failures.map((f) => f.code)).toEqual(["STATEMENT_MISMATCH"]);
  });

  it("is, for the tenancy's administrator, the bundle its own reads make, byte for byte", async () => {
    for (const subject of [
      { kind: "vcon", uuid: vcon },
      { kind: "asset", uuid: assetId.replace("assets/", "") },
    ] as const) {
      const { route, reads } = await routeAndReads(token, subject);
      expect(route.index).toHaveLength(1);
      expect(JSON.stringify(route)).toBe(JSON.stringify(reads));
    }
  });
});
