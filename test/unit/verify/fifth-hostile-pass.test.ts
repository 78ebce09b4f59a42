import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatIdTimestamp } from "../../../src/core/log/idtimestamp.js";
import { buildReceipt } from "../../../src/core/log/receipt.js";
import { buildSeal } from "../../../src/core/log/seal.js";
import type { EvidenceBundle } from "../../../src/formats/bundle/format.js";
import { encodeCbor, Tagged } from "../../../src/formats/cbor/index.js";
import {
  coseKeySet,
  decodeRfc9162Receipt,
  decodeSign1,
  verifyReceipt,
  verifyRfc9162Receipt,
  verifySign1,
} from "../../../src/formats/cose/index.js";
import type { EcJwk } from "../../../src/formats/crypto/public-key.js";
import { consentOf, lifecycleOrder } from "../../../src/formats/lifecycle/consent.js";
import { leafOfRecord } from "../../../src/formats/record/api-record.js";
import { commit, erasableStandings } from "../../../src/formats/record/erasable.js";
import { verifyConsistency as verifyTreeConsistency } from "../../../src/formats/rfc9162/index.js";
import { statementToEventAttributes } from "../../../src/formats/scitt/statement.js";
import { attachReceipts } from "../../../src/formats/scitt/transparent-statement.js";
import { verifyDocumentHash } from "../../../src/lookup/document.js";
import { PublicApi } from "../../../src/lookup/public-api.js";
import { verifyVcon } from "../../../src/lookup/vcon.js";
import { parseBundle, verifyBundle } from "../../../src/verify/bundle/index.js";
import { bundleConsentReport } from "../../../src/verify/lifecycle/report.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { verifyStatement } from "../../../src/verify/scitt/transparent.js";
import { verifyCheckpoint } from "../../../src/verify/tlog/log-check.js";
import { verifyTlogProof } from "../../../src/verify/tlog/proof-check.js";
import { verifyRecordTlogProof } from "../../../src/verify/tlog/record-proof.js";
import { judgeCheckpoint } from "../../../src/verify/verdict/checkpoint.js";
import { PolicyError, parsePolicy, witnessGroup } from "../../../src/verify/verdict/policy.js";
import { noTrust, type TrustRoots } from "../../../src/verify/verdict/trust.js";
import { deterministicSigner, vectorPublicKey } from "../../helpers/vector-key.js";
import { buildFixture, statementOptions } from "../formats/cose/fixture.js";
import { mth, sha } from "./tlog/reference-tree.js";
import {
  freeEvent,
  genuineEntries,
  LOG_VKEY,
  signedLog,
  WITNESS,
  WITNESS_VKEY,
} from "./verdict/genuine-log.js";

// A fifth red-team pass over the verifier: hostile inputs made from genuine artefacts, each
// expected to be refused. Earlier passes: test/unit/foundation/third-hostile-pass.test.ts,
// test/integration/foundation/fourth-hostile-pass.test.ts, verify/verdict/forged-records.test.ts.

const fx = buildFixture();
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const unb64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));

/** The COSE_Sign1 with `payload` attached in place of what it carried (null for a receipt). */
function withPayload(sign1: Uint8Array, payload: Uint8Array): Uint8Array {
  const s = decodeSign1(sign1);
  return encodeCbor(new Tagged(18, [s.protectedBytes, s.unprotectedHeader, payload, s.signature]));
}

describe("a receipt carrying its signed payload attached instead of detached", () => {
  // A receipt signs the peak (or root) its path leads to, detached: the verifier recomputes it
  // from the leaf. Attached, the genuine peak let the signature verify whatever the leaf.
  const other = new Uint8Array(32).fill(0xee);

  it("an MMR receipt with its own peak attached proves nothing of another leaf", () => {
    expect(verifyReceipt(fx.receipt, fx.leaf, vectorPublicKey).ok).toBe(true);
    const forged = withPayload(fx.receipt, fx.peak);
    expect(verifyReceipt(forged, other, vectorPublicKey)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/does not verify over the recomputed peak/),
    });
    // The genuine leaf still verifies: the attached peak is the one it leads to.
    expect(verifyReceipt(forged, fx.leaf, vectorPublicKey).ok).toBe(true);
  });

  it("verifySign1 refuses an attached payload other than the one the caller checks", () => {
    const attached = withPayload(fx.receipt, fx.peak);
    expect(verifySign1(attached, vectorPublicKey, fx.peak)).toBe(true);
    expect(verifySign1(attached, vectorPublicKey, other)).toBe(false);
    // A statement's own attached payload, when the caller gives none, is what it signs.
    expect(verifySign1(fx.attached, vectorPublicKey)).toBe(true);
  });
});

describe("a bundle whose record was changed under receipts with their roots attached", () => {
  const text = readFileSync(
    new URL("../../../fixtures/bundles/mmr-bstr-receipts.json", import.meta.url),
    "utf8",
  );
  const keys = (b: EvidenceBundle) => keysFromKeySet(unb64(b.keys.cose_key_set));
  const pinnedAsGiven = (b: EvidenceBundle): TrustRoots => ({
    ...noTrust(),
    serviceKeys: keys(b),
    described: ["the service's keys"],
  });

  /** The bundle with record 0 changed, kept with only its RFC 9162 receipt, root attached, and no checkpoint. */
  function forgedBundle(): EvidenceBundle {
    const b = parseBundle(text);
    const entry = b.records[0];
    if (!entry) throw new Error("fixture has no record");
    const genuine = entry.receipts.find((r) => r.profile === "rfc9162");
    if (!genuine) throw new Error("fixture has no rfc9162 receipt");
    const v = verifyRecordReceipt(entry.record, unb64(genuine.receipt), keys(b));
    if (!v.ok) throw new Error(v.reason);
    entry.record = { ...entry.record, asset_attributes: { arc_display_type: "forged" } };
    entry.receipts = [
      { ...genuine, receipt: b64(withPayload(unb64(genuine.receipt), Buffer.from(v.peak, "hex"))) },
    ];
    for (const l of b.logs) delete l.checkpoints;
    return b;
  }

  it("the genuine bundle verifies under its pinned keys (the fixture is right)", () => {
    const b = parseBundle(text);
    expect(verifyBundle(b, pinnedAsGiven(b)).code).toBe("verified");
  });

  it("is refused as RECEIPT_INVALID, both through verifyRecordReceipt and verifyBundle", () => {
    const b = forgedBundle();
    const entry = b.records[0] as EvidenceBundle["records"][number];
    const receipt = unb64((entry.receipts[0] as { receipt: string }).receipt);
    expect(verifyRecordReceipt(entry.record, receipt, keys(b))).toMatchObject({ ok: false });
    const report = verifyBundle(b, pinnedAsGiven(b));
    expect(report.code).toBe("tampered");
    expect(report.failures.map((f) => f.code)).toContain("RECEIPT_INVALID");
  });

  it("an RFC 9162 receipt with its root attached proves nothing of another leaf", () => {
    const b = parseBundle(text);
    const entry = b.records[0] as EvidenceBundle["records"][number];
    const genuine = unb64(
      (entry.receipts.find((r) => r.profile === "rfc9162") as { receipt: string }).receipt,
    );
    const key = keys(b).get(decodeRfc9162Receipt(genuine).kid);
    if (!key) throw new Error("no key");
    const v = verifyRecordReceipt(entry.record, genuine, keys(b));
    if (!v.ok) throw new Error(v.reason);
    const forged = withPayload(genuine, Buffer.from(v.peak, "hex"));
    expect(verifyRfc9162Receipt(forged, Buffer.from(v.leaf, "hex"), key).ok).toBe(true);
    expect(verifyRfc9162Receipt(forged, new Uint8Array(32).fill(7), key).ok).toBe(false);
  });
});

const TENANT = "6a009b40-eb55-4159-81f0-69024f89f53c";
const LOG = `tenant/${TENANT}`;
const SERVICE = "https://archivist.example";

/** An asset-free event alone in its tenancy's log, with its receipt and seal signed with the vector key as "svc". */
function freeEventEvidence(attributes: Record<string, unknown>) {
  const idtimestamp = 0x8fa97ef269039b00n;
  const record: Record<string, unknown> = {
    identity: "events/0b7e1c2a-3f4d-4e5f-8a9b-1c2d3e4f5a6b",
    origin_tenant: LOG,
    attributes,
    trails: [String(attributes.subject ?? "")],
    event_type: "",
    merklelog_commit: { index: "0", idtimestamp: formatIdTimestamp(idtimestamp) },
  };
  const leaf = leafOfRecord(record);
  const at = formatIdTimestamp(idtimestamp);
  const base = { kid: "svc", issuer: SERVICE };
  const receipt = buildReceipt(
    { ...base, subject: LOG, mmrIndex: 0, path: [], peak: leaf, idtimestamp: at },
    deterministicSigner,
  );
  const state = { mmrSize: 1, timestampMs: 1_700_000_000_000, idtimestamp, epoch: 1, peaks: [leaf] };
  const seal = buildSeal({ ...base, logId: LOG, state }, deterministicSigner);
  return { record, receipt, seal };
}

/** A one-record vCon bundle of that event. */
function freeEventBundle(attributes: Record<string, unknown>, subject: string): EvidenceBundle {
  const { record, receipt, seal } = freeEventEvidence(attributes);
  return {
    format: "vcon-archivist/evidence-bundle",
    version: 1,
    created_at: "2026-11-27T00:00:00Z",
    service: SERVICE,
    subject: { kind: "vcon", id: subject },
    assets: [],
    records: [{ record, receipts: [{ profile: "mmr", log: LOG, mmr_size: 1, receipt: b64(receipt) }] }],
    logs: [{ log: LOG, profile: "mmr", seals: [{ mmr_size: 1, seal: b64(seal) }], consistency: [] }],
    keys: { cose_key_set: b64(coseKeySet([{ jwk: vectorPublicKey.jwk as EcJwk, kid: "svc" }])) },
  };
}

describe("an asset-free event's unsigned event_attributes read as its attributes", () => {
  // An asset-free event's leaf hashes `attributes`; `event_attributes` is an asset event's
  // field, unsigned on an asset-free event. Read first, it named the record's subject and
  // lifecycle operation: a genuine record of one vCon verified as another's, a grant as a revocation.
  const vconA = "vcon://0190b6a1-0000-7000-8000-00000000000a";
  const vconB = "vcon://0190b6a1-0000-7000-8000-00000000000b";
  const granted = { vcon_operation: "vcon_consent_accepted", subject: vconA, consent_purpose: "ai" };
  const roots: TrustRoots = {
    ...noTrust(),
    serviceKeys: new Map([["svc", vectorPublicKey]]),
    described: ["svc"],
  };

  it("the genuine record verifies as of its own vCon (the fixture is right)", () => {
    const report = verifyBundle(freeEventBundle(granted, vconA), roots);
    expect(report.code, JSON.stringify(report.problems)).toBe("verified");
  });

  it("is not of another vCon because its unsigned event_attributes say so", () => {
    const b = freeEventBundle(granted, vconB);
    const entry = b.records[0] as EvidenceBundle["records"][number];
    entry.record = { ...entry.record, event_attributes: { ...granted, subject: vconB } };
    const report = verifyBundle(b, roots);
    expect(report.code).toBe("tampered");
    expect(report.failures.map((f) => f.code)).toEqual(["RECORD_OF_OTHER_SUBJECT"]);
  });

  it("the consent report reads the signed attributes, not an unsigned revocation beside them", () => {
    const b = freeEventBundle(granted, vconA);
    const entry = b.records[0] as EvidenceBundle["records"][number];
    entry.record = {
      ...entry.record,
      event_attributes: { ...granted, vcon_operation: "vcon_consent_revoked" },
    };
    const report = verifyBundle(b, roots);
    expect(report.code).toBe("verified");
    const consent = bundleConsentReport(b, report);
    expect(consent.read).toBe(1);
    const ai = consent.purposes.find((p) => p.purpose === "ai");
    expect(JSON.stringify(ai)).toMatch(/vcon_consent_accepted|granted/);
    expect(JSON.stringify(ai)).not.toMatch(/revoked/);
  });
});

describe("a transparent statement carrying another record, its unsigned event_attributes copied from the statement", () => {
  // A statement made from a record is checked against the record's attributes, and its
  // receipts against the record's leaf. The attributes compared must be the ones that leaf hashes.
  const keys = {
    issuerKeys: new Map([[statementOptions.kid, vectorPublicKey]]),
    serviceKeys: new Map([["svc", vectorPublicKey]]),
  };
  const said = statementToEventAttributes(fx.attached).attributes;

  it("the statement with its own record and that record's receipt verifies (the fixture is right)", () => {
    const own = freeEventEvidence(said);
    const v = verifyStatement(attachReceipts(fx.attached, [own.receipt], own.record), keys);
    expect(v, JSON.stringify(v)).toMatchObject({ ok: true, receipts: 1 });
  });

  it("is refused when the record's signed attributes are another's", () => {
    const other = freeEventEvidence({ ...said, payload: "00".repeat(32), subject: "vcon://someone-else" });
    const forged = attachReceipts(fx.attached, [other.receipt], { ...other.record, event_attributes: said });
    expect(verifyRecordReceipt(other.record, other.receipt, keys.serviceKeys).ok).toBe(true);
    expect(verifyStatement(forged, keys)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/is not the embedded record's/),
    });
  });
});

describe("the order of asset-free events in the consent derivations", () => {
  // An asset-free event's leaf hashes its idtimestamp, not its created_at (nor a
  // timestamp_accepted it should not carry): the last grant or revocation decides, so an
  // unsigned time could put a revocation before the grant it revoked.
  const idts = (ms: number) => formatIdTimestamp(BigInt(ms - (2 ** 40 - 1)) << 24n);
  const at = (minute: number) => Date.UTC(2026, 0, 1, 0, minute);
  const free = (n: number, op: string, minute: number, unsigned: Record<string, unknown>) => ({
    identity: `events/0b7e1c2a-3f4d-4e5f-8a9b-1c2d3e4f5a6${n}`,
    origin_tenant: LOG,
    attributes: { vcon_operation: op, subject: "vcon://v", consent_purpose: "ai" },
    trails: ["vcon://v"],
    merklelog_commit: { index: String(n), idtimestamp: idts(at(minute)) },
    ...unsigned,
  });

  it("follows the idtimestamps the leaves sign, whatever created_at says", () => {
    const grant = free(1, "vcon_consent_accepted", 1, { created_at: at(9) });
    const revoke = free(2, "vcon_consent_revoked", 2, { created_at: at(2) });
    expect(consentOf(lifecycleOrder([grant, revoke]), "ai")).toMatchObject({
      state: "revoked",
      decided_by: revoke.identity,
    });
  });

  it("and whatever an unsigned timestamp_accepted says", () => {
    const grant = free(1, "vcon_consent_accepted", 1, { timestamp_accepted: new Date(at(9)).toISOString() });
    const revoke = free(2, "vcon_consent_revoked", 2, { created_at: at(2) });
    expect(consentOf(lifecycleOrder([grant, revoke]), "ai").state).toBe("revoked");
  });
});

describe("one witness given twice toward a quorum", () => {
  // A quorum counts distinct witnesses: the same cosignature key listed twice (two --witness
  // flags, a witness in the policy file and on the command line) would count one cosignature twice.
  const log = signedLog(genuineEntries(), undefined, 1_800_000_000);
  const judged = (p: ReturnType<typeof parsePolicy>) => judgeCheckpoint(log.note, undefined, p);

  it("one witness meets a quorum of one (the fixture is right)", () => {
    const p = parsePolicy(`log ${LOG_VKEY}\n`);
    witnessGroup(p, [WITNESS_VKEY], 1);
    expect(judged(p)).toMatchObject({ ok: true, witnessed: true, cosigners: ["witness-1"] });
  });

  it("is refused on the command line: the same key twice", () => {
    const p = parsePolicy(`log ${LOG_VKEY}\n`);
    expect(() => witnessGroup(p, [WITNESS_VKEY, ` ${WITNESS_VKEY}`], 2)).toThrow(PolicyError);
  });

  it("is refused when the command line repeats a witness of the policy file", () => {
    const p = parsePolicy(`log ${LOG_VKEY}\nwitness w1 ${WITNESS_VKEY}\nquorum w1\n`);
    expect(() => witnessGroup(p, [WITNESS_VKEY], 1)).toThrow(PolicyError);
  });
});

describe("a disclosure against a commitment in a map the record's leaf does not hash", () => {
  // An asset-free event's leaf hashes `attributes`; a commitment put in its (unsigned)
  // `event_attributes`, with a value and salt that hash to it, was reported as a disclosed
  // attribute matching its commitment: a made-up value shown as the record's.
  const salt = new Uint8Array(32).fill(3);
  const attrs = { vcon_operation: "vcon_created", subject: "vcon://0190b6a1-0000-7000-8000-00000000000a" };
  const roots: TrustRoots = {
    ...noTrust(),
    serviceKeys: new Map([["svc", vectorPublicKey]]),
    described: ["svc"],
  };

  it("is a mismatch, not a disclosed attribute of a verified record", () => {
    const b = freeEventBundle(attrs, attrs.subject);
    const entry = b.records[0] as EvidenceBundle["records"][number];
    entry.record = {
      ...entry.record,
      event_attributes: { phone: commit("+1 555 0100", salt) },
      erasable: { event_attributes: { phone: { disclosed: { value: "+1 555 0100", salt: b64(salt) } } } },
    };
    expect(erasableStandings(entry.record).map((s) => s.state)).toEqual(["mismatch"]);
    const report = verifyBundle(b, roots);
    expect(report.records[0]?.erasable ?? []).toEqual([]);
    expect(report.failures.map((f) => f.code)).toEqual(["ERASABLE_MISMATCH"]);
  });

  it("a commitment in the hashed map discloses (the fixture is right)", () => {
    const b = freeEventBundle({ ...attrs, phone: commit("+1 555 0100", salt) }, attrs.subject);
    const entry = b.records[0] as EvidenceBundle["records"][number];
    entry.record = {
      ...entry.record,
      erasable: { attributes: { phone: { disclosed: { value: "+1 555 0100", salt: b64(salt) } } } },
    };
    const report = verifyBundle(b, roots);
    expect(report.code, JSON.stringify(report.problems)).toBe("verified");
    expect(report.records[0]?.erasable).toMatchObject([
      { attribute: "attributes.phone", state: "disclosed" },
    ]);
  });
});

describe("a vCon's public trail, answered by a hostile service", () => {
  // The look-up lists the records the service says are the vCon's and checks each one's
  // receipt. A step must be the vCon's by what its leaf signs: a genuine record of another
  // vCon, or one given unsigned event_attributes naming this one, is not a step of its trail.
  const vconA = "vcon://0190b6a1-0000-7000-8000-00000000000a";
  const vconB = "vcon://0190b6a1-0000-7000-8000-00000000000b";
  const signedAttrs = {
    vcon_operation: "vcon_created",
    subject: vconA,
    payload: "11".repeat(32),
    scitt_issuer: "x",
  };
  const keySet = coseKeySet([{ jwk: vectorPublicKey.jwk as EcJwk, kid: "svc" }]);

  function serving(record: Record<string, unknown>, receipt: Uint8Array): PublicApi {
    const id = String(record.identity).replace(/^events\//, "");
    return new PublicApi("https://archivist.example", async (url: string) => {
      const path = url.replace("https://archivist.example", "");
      if (path === "/.well-known/scitt-keys") return new Response(Buffer.from(keySet));
      if (path.startsWith("/archivist/v2/publicassets/-/events?")) return Response.json({ events: [record] });
      if (path === `/archivist/v1/receipts/events/${id}?profile=mmr`)
        return new Response(Buffer.from(receipt));
      return new Response("not found", { status: 404 });
    });
  }

  it("the record verifies as a step of its own vCon (the fixture is right)", async () => {
    const { record, receipt } = freeEventEvidence(signedAttrs);
    const r = await verifyVcon(serving(record, receipt), { uuid: vconA });
    expect(r, r.verdict).toMatchObject({ ok: true });
    expect(r.trail[0]).toMatchObject({ operation: "vcon_created", receipt: { ok: true } });
  });

  it("a record of another vCon whose unsigned event_attributes name this one is not verified", async () => {
    const { record, receipt } = freeEventEvidence(signedAttrs);
    const forged = {
      ...record,
      event_attributes: { ...signedAttrs, subject: vconB, vcon_operation: "vcon_deleted" },
    };
    const r = await verifyVcon(serving(forged, receipt), { uuid: vconB });
    expect(r.ok).toBe(false);
    expect(r.verdict).toMatch(/^NOT VERIFIED/);
    expect(r.trail[0]).toMatchObject({ operation: "vcon_created", receipt: { ok: false, code: "tampered" } });
  });
});

describe("a document hash look-up, answered by a hostile service", () => {
  // A document version is an asset event whose (signed) asset_attributes carry the hash. The
  // service lists the events: an asset-free event given unsigned asset_attributes naming the
  // hash, with its own genuine receipt, must not read as a published version.
  const hash = "22".repeat(32);
  const keySet = coseKeySet([{ jwk: vectorPublicKey.jwk as EcJwk, kid: "svc" }]);

  it("an asset-free event with unsigned asset_attributes is no published version", async () => {
    const { record, receipt } = freeEventEvidence({ subject: "x", scitt_issuer: "x" });
    const forged = {
      ...record,
      asset_attributes: { document_hash_value: hash, document_version: "1", document_status: "Published" },
    };
    const id = String(record.identity).replace(/^events\//, "");
    const api = new PublicApi("https://archivist.example", async (url: string) => {
      const path = url.replace("https://archivist.example", "");
      if (path === "/.well-known/scitt-keys") return new Response(Buffer.from(keySet));
      if (path.startsWith("/archivist/v2/publicassets/-/events?")) return Response.json({ events: [forged] });
      if (path === `/archivist/v2/publicassets/${id}`)
        return Response.json({ identity: `publicassets/${id}`, attributes: { arc_profile: "Document" } });
      if (path === `/archivist/v2/publicassets/${id}/events`) return Response.json({ events: [forged] });
      if (path === `/archivist/v1/receipts/events/${id}?profile=mmr`)
        return new Response(Buffer.from(receipt));
      return new Response("not found", { status: 404 });
    });
    expect(verifyRecordReceipt(forged, receipt, new Map([["svc", vectorPublicKey]])).ok).toBe(true);
    const r = await verifyDocumentHash(api, hash);
    expect(r).toMatchObject({ ok: false, matches: [] });
    expect(r.verdict).toMatch(/^NOT FOUND/);
  });
});

describe("a record's log index in a form other than the one the log wrote", () => {
  // The index is not in the leaf; the proof places the leaf. A record saying "01", "0x1" or ""
  // for entry 1 (or 0) says what the log did not write, and must not verify as it stands.
  const log = signedLog();
  const trust = { logVkey: LOG_VKEY, witnessVkeys: [], quorum: 0 };
  const at = (index: string) => ({
    ...freeEvent(),
    merklelog_commit: { ...(freeEvent().merklelog_commit as object), index },
  });

  it("the record at its index verifies (the fixture is right)", () => {
    expect(verifyRecordTlogProof(at("1"), log.proof(1, "x"), trust).ok).toBe(true);
  });

  it.each(["01", "0x1", "1.0", " 1", "1e0"])("index %j is refused", (index) => {
    expect(verifyRecordTlogProof(at(index), log.proof(1, "x"), trust).ok).toBe(false);
  });
});

describe("probes this pass found refused (kept so they stay refused)", () => {
  const entries = genuineEntries();
  const log = signedLog(entries, undefined, 1_800_000_000);
  const trust = { logVkey: LOG_VKEY, witnessVkeys: [WITNESS_VKEY], quorum: 1 };
  const root = (n: number) => mth(entries.slice(0, n));

  it("RFC 9162 consistency: equal sizes with a non-empty proof, and size 0, prove nothing", () => {
    expect(verifyTreeConsistency(7, 7, root(7), root(7), [])).toBe(true);
    expect(verifyTreeConsistency(7, 7, root(7), root(7), [root(3)])).toBe(false);
    expect(verifyTreeConsistency(0, 7, sha(new Uint8Array()), root(7), [])).toBe(false);
  });

  it("a tlog-proof with one hash too many, or its index at the tree's size, is refused", () => {
    const good = log.proof(2, "x");
    expect(verifyTlogProof(good, [entries[2] as Uint8Array], trust).ok).toBe(true);
    const lines = good.split("\n");
    const blank = lines.indexOf("");
    const longer = [...lines.slice(0, blank), lines[blank - 1], ...lines.slice(blank)].join("\n");
    expect(verifyTlogProof(longer, [entries[2] as Uint8Array], trust).ok).toBe(false);
    const beyond = good.replace(/^index 2$/m, `index ${entries.length}`);
    expect(verifyTlogProof(beyond, [entries[2] as Uint8Array], trust)).toMatchObject({ ok: false });
  });

  it("one witness's cosignature line given twice counts once toward a quorum of two", () => {
    const lines = log.note.split("\n");
    const witnessLine = lines.find((l) => l.startsWith(`\u2014 ${WITNESS} `)) as string;
    const doubled = `${log.note}${witnessLine}\n`;
    expect(verifyCheckpoint(doubled, trust)).toMatchObject({ ok: true, cosigners: [WITNESS] });
    const v = verifyCheckpoint(doubled, { ...trust, quorum: 2 });
    expect(v).toMatchObject({ ok: false, reason: expect.stringMatching(/1 of the 2/) });
  });
});
