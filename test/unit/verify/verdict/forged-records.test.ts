import { generateKeyPairSync } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ed25519PublicKey, formatVkey } from "../../../../src/core/log/note-sign.js";
import { registeredEvent } from "../../../../src/core/scitt/index.js";
import { leafOfRecord } from "../../../../src/formats/record/api-record.js";
import { ED25519 } from "../../../../src/formats/tlog/index.js";
import { parsePolicy } from "../../../../src/verify/verdict/policy.js";
import {
  type IssuerKeys,
  verifyRecordInLog,
  verifyRecordTlogProofReport,
} from "../../../../src/verify/verdict/record-in-log.js";
import type { TrustRoots } from "../../../../src/verify/verdict/trust.js";
import { leafPreimage } from "../../../helpers/leaf-preimage.js";
import { sha } from "../tlog/reference-tree.js";
import {
  assetEvent,
  COLLIDING_SEEDS,
  freeEvent,
  genuineEntries,
  ISSUER_KID,
  issuerKey,
  LOG_VKEY,
  ORIGIN,
  type Rec,
  registeredRecord,
  STATEMENT,
  signedLog,
  statementFor,
  WITNESS,
  WITNESS_VKEY,
} from "./genuine-log.js";

const pinned = (...lines: string[]): TrustRoots => ({
  policy: parsePolicy([`log ${LOG_VKEY}`, ...lines].join("\n")),
  described: ["test policy"],
});
const issuers: IssuerKeys = new Map([[ISSUER_KID, issuerKey]]);
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

const log = signedLog();
const LEAF = { free: 1, asset: 2, statement: 3 } as const;
const proofOf = (r: Rec, leaf: number, statement?: Uint8Array) =>
  log.proof(leaf, String(r.identity), statement);

/** Both paths a record is checked in a log by: its tlog-proof, and the log's tiles (a mirror). */
async function bothPaths(r: Rec, leaf: number, trust: TrustRoots, statement?: Uint8Array) {
  const viaProof = await verifyRecordTlogProofReport(r, proofOf(r, leaf, statement), trust, {
    issuerKeys: issuers,
  });
  const viaTiles = await verifyRecordInLog(r, log.note, undefined, trust, log.fetch, {
    issuerKeys: issuers,
    ...(statement ? { statement } : {}),
  });
  return [viaProof, viaTiles];
}

describe("the genuine log verifies (the fixture is right)", () => {
  it("an asset event and an asset-free event, by proof and by tiles, under the pinned log key", async () => {
    for (const [r, leaf] of [
      [assetEvent(), LEAF.asset],
      [freeEvent(), LEAF.free],
    ] as const)
      for (const v of await bothPaths(r, leaf, pinned()))
        expect(v, `${v.summary}`).toMatchObject({ code: "verified", leaf_index: leaf });
    // The injected bytes are exactly the leaf's preimage.
    expect(sha(leafPreimage(assetEvent()))).toEqual(leafOfRecord(assetEvent()));
    expect(sha(leafPreimage(freeEvent()))).toEqual(leafOfRecord(freeEvent()));
  });

  it("a registered statement with its statement and the issuer's key; without either it is not verified", async () => {
    for (const v of await bothPaths(registeredRecord(), LEAF.statement, pinned(), STATEMENT))
      expect(v, v.summary).toMatchObject({ code: "verified" });
    const noStatement = await verifyRecordInLog(registeredRecord(), log.note, undefined, pinned(), log.fetch);
    expect(noStatement).toMatchObject({ code: "cannot-evaluate" });
    expect(noStatement.summary).toMatch(/the statement is needed/);
    const noIssuerKey = await verifyRecordTlogProofReport(
      registeredRecord(),
      proofOf(registeredRecord(), LEAF.statement, STATEMENT),
      pinned(),
    );
    expect(noIssuerKey).toMatchObject({ code: "cannot-evaluate" });
    expect(noIssuerKey.summary).toMatch(/--issuer-key issuer-key-1=/);
  });
});

describe("forged records never verify (the fourth hostile pass, issue 55)", () => {
  it("content changed, the genuine leaf's preimage injected as attributes.payload: tampered on both paths", async () => {
    const forgedAsset = {
      ...assetEvent(),
      event_attributes: { arc_display_type: "vcon_created", amount: "1000000" },
      attributes: { payload: hex(leafPreimage(assetEvent())) },
    };
    const forgedFree = {
      ...freeEvent(),
      attributes: { arc_display_type: "note", amount: "1000000", payload: hex(leafPreimage(freeEvent())) },
    };
    for (const [r, leaf] of [
      [forgedAsset, LEAF.asset],
      [forgedFree, LEAF.free],
    ] as const)
      for (const v of await bothPaths(r, leaf, pinned()))
        expect(v, v.summary).toMatchObject({ code: "tampered", exit_code: 1 });
  });

  it("a made-up asset event carrying a registered statement's payload and commit: tampered", async () => {
    const madeUp = {
      ...assetEvent(LEAF.statement),
      identity: "assets/99999999-1111-4222-8333-444455556666/events/99999999-aaaa-4bbb-8ccc-ddddeeeeffff",
      event_attributes: { arc_display_type: "anything", subject: "vcon://someone-else" },
      attributes: { payload: "ab".repeat(32) },
    };
    for (const v of await bothPaths(madeUp, LEAF.statement, pinned(), STATEMENT))
      expect(v, v.summary).toMatchObject({ code: "tampered" });
  });

  it("a registered statement's record with its subject and event_type edited: tampered with the statement, never verified without", async () => {
    const subject = {
      ...registeredRecord(),
      attributes: { ...(registeredRecord().attributes as object), subject: "vcon://someone-else" },
    };
    const both = { ...subject, event_type: "vcon_consent_granted" };
    for (const v of await bothPaths(subject, LEAF.statement, pinned(), STATEMENT)) {
      expect(v, v.summary).toMatchObject({ code: "tampered" });
      expect(v.summary).toMatch(/attributes\.subject differ/);
    }
    for (const v of await bothPaths(both, LEAF.statement, pinned(), STATEMENT))
      expect(v, v.summary).toMatchObject({ code: "tampered" });
    for (const r of [subject, both])
      expect((await verifyRecordInLog(r, log.note, undefined, pinned(), log.fetch)).ok).toBe(false);
  });

  it("an attacker's statement of the same payload for another subject: refused under the issuer's key", async () => {
    const attacker = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    for (const kid of [ISSUER_KID, "attacker"]) {
      const forged = statementFor("vcon://someone-else", attacker, kid);
      const record = { ...registeredRecord(), ...registeredEventOf(forged) };
      for (const v of await bothPaths(record, LEAF.statement, pinned(), forged))
        expect(v.code, v.summary).toBe(kid === ISSUER_KID ? "tampered" : "cannot-evaluate");
    }
  });

  it("a mirror signed by a key whose key id collides with the pinned log key: never verified", async () => {
    const forgerVkey = formatVkey(ORIGIN, ED25519, ed25519PublicKey(COLLIDING_SEEDS.forger));
    expect(forgerVkey.split("+")[1]).toBe(LOG_VKEY.split("+")[1]);
    const tampered: Rec = { ...freeEvent(), attributes: { arc_display_type: "note", amount: "1000000" } };
    const entries = genuineEntries();
    entries[LEAF.free] = leafOfRecord(tampered);
    const forged = signedLog(entries, new Uint8Array(COLLIDING_SEEDS.forger));
    for (const trust of [pinned(), { policy: parsePolicy(`log ${LOG_VKEY}`), described: ["--log-key"] }]) {
      const viaTiles = await verifyRecordInLog(tampered, forged.note, forgerVkey, trust, forged.fetch);
      expect(viaTiles, viaTiles.summary).toMatchObject({ code: "tampered" });
      const viaProof = await verifyRecordTlogProofReport(
        tampered,
        forged.proof(LEAF.free, String(tampered.identity)),
        trust,
        { served: forgerVkey },
      );
      expect(viaProof, viaProof.summary).toMatchObject({ code: "tampered" });
    }
    // Unpinned, the forged mirror is self-consistent at most: its own key is all it has.
    const bare = await verifyRecordInLog(
      tampered,
      forged.note,
      forgerVkey,
      { policy: parsePolicy(""), described: [] },
      forged.fetch,
    );
    expect(bare.code).toBe("self-consistent-unpinned");
  });

  it("generated forgeries around genuine proofs never verify", async () => {
    const genuine: Array<[Rec, number, Uint8Array | undefined]> = [
      [assetEvent(), LEAF.asset, undefined],
      [freeEvent(), LEAF.free, undefined],
      [registeredRecord(), LEAF.statement, STATEMENT],
    ];
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant("content" as const), value: fc.string({ minLength: 1, maxLength: 8 }) }),
      fc.record({ kind: fc.constant("inject" as const), of: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant("identity" as const), uuid: fc.uuid({ version: 4 }) }),
      fc.record({ kind: fc.constant("kind" as const) }),
      fc.record({ kind: fc.constant("subject" as const), value: fc.string({ minLength: 1, maxLength: 8 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 }), mutation, async (which, m) => {
        const [base, leaf, statement] = genuine[which] as [Rec, number, Uint8Array | undefined];
        const r: Rec = structuredClone(base);
        const attrsKey = "event_attributes" in r ? "event_attributes" : "attributes";
        const attrs = r[attrsKey] as Record<string, unknown>;
        if (m.kind === "content") attrs.amount = `${String(attrs.amount ?? "")}${m.value}`;
        if (m.kind === "inject") {
          const src = (genuine[m.of] as [Rec, number, Uint8Array | undefined])[0];
          // A changed record that carries a genuine entry's preimage or a statement's payload.
          attrs.note = "changed";
          r.attributes = {
            ...(r.attributes as object),
            payload: m.of === 2 ? "ab".repeat(32) : hex(leafPreimage(src)),
          };
        }
        if (m.kind === "identity") r.identity = String(r.identity).replace(/[0-9a-f-]{36}$/, m.uuid);
        if (m.kind === "kind") {
          // An asset event presented as an asset-free event, and the other way round.
          if (String(r.identity).startsWith("events/"))
            r.identity = `assets/0a1b2c3d-1111-4222-8333-444455556666/${String(r.identity)}`;
          else r.identity = String(r.identity).replace(/^.*\/events\//, "events/");
        }
        if (m.kind === "subject") attrs.subject = `${String(attrs.subject ?? "")}${m.value}`;
        const changed = Object.keys({ ...base, ...r }).filter(
          (k) => JSON.stringify(r[k]) !== JSON.stringify(base[k]),
        );
        if (changed.length === 0) return;
        // Verified only where every changed field is one the verdict names as unsigned (an
        // asset-free event's identity is the service's name for it, not part of its leaf).
        for (const v of await bothPaths(r, leaf, pinned(), statement))
          if (
            (v.code === "verified" || v.code === "self-consistent-unpinned") &&
            !changed.every((k) => v.unsigned.some((u) => u.startsWith(`${k}:`)))
          )
            throw new Error(`${m.kind} (${changed.join(", ")}) verified: ${v.summary}`);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 200) },
    );
  });
});

/** The hashed fields of the asset-free event a statement becomes when registered. */
function registeredEventOf(statement: Uint8Array): Rec {
  const { issuer: _issuer, ...e } = registeredEvent(statement);
  return e;
}

describe("policies are enforced on tlog-proofs and mirrors", () => {
  const witnessed = (at: number) => signedLog(genuineEntries(), undefined, at);
  const now = new Date(1_800_000_000_000);
  const check = (l: ReturnType<typeof signedLog>, trust: TrustRoots) =>
    Promise.all([
      verifyRecordTlogProofReport(freeEvent(), l.proof(LEAF.free, String(freeEvent().identity)), trust, {
        now,
      }),
      verifyRecordInLog(freeEvent(), l.note, undefined, trust, l.fetch, { now }),
    ]);

  it("a quorum the checkpoint lacks is policy-failed (exit 3), met it is verified, witnessed", async () => {
    const policy = pinned(`witness w1 ${WITNESS_VKEY}`, "quorum w1");
    for (const v of await check(signedLog(), policy)) {
      expect(v, v.summary).toMatchObject({ code: "policy-failed", exit_code: 3 });
      expect(v.summary).toMatch(/witness quorum/);
    }
    for (const v of await check(witnessed(1_799_999_990), policy))
      expect(v, v.summary).toMatchObject({
        code: "verified",
        trust: { level: "witnessed" },
        cosigners: ["w1"],
      });
    expect(WITNESS).toBe("witness.example/w1");
  });

  it("min-trust witnessed with an unwitnessed checkpoint is policy-failed", async () => {
    for (const v of await check(signedLog(), pinned("min-trust witnessed")))
      expect(v, v.summary).toMatchObject({ code: "policy-failed" });
  });

  it("max-age is judged by the witnesses' cosignature time, and unestablished is not met", async () => {
    const policy = pinned(`witness w1 ${WITNESS_VKEY}`, "quorum w1", "max-age 1h");
    for (const v of await check(witnessed(1_800_000_000 - 7200), policy)) {
      expect(v.code).toBe("policy-failed");
      expect(v.summary).toMatch(/max-age 3600s: the checkpoint's newest cosignature is 7200s old/);
    }
    for (const v of await check(witnessed(1_800_000_000 - 60), policy)) expect(v.code).toBe("verified");
    for (const v of await check(signedLog(), pinned("max-age 1s"))) {
      expect(v.code).toBe("policy-failed");
      expect(v.summary).toMatch(/age is not established/);
    }
  });

  it("a policy naming two logs of one service (one key, two origins) is read and judged", async () => {
    const other = formatVkey(
      ORIGIN.replace(/6c5a8c0e/, "7d6b9d1f"),
      ED25519,
      ed25519PublicKey(COLLIDING_SEEDS.pinned),
    );
    const both = { policy: parsePolicy(`log ${other}\nlog ${LOG_VKEY}`), described: ["policy"] };
    for (const v of await check(signedLog(), both)) expect(v.code, v.summary).toBe("verified");
  });

  it("judges a policy of 40 nested groups at once", async () => {
    // Each group names every group before it: walking every path would take 2^40 steps.
    const lines = [`witness w1 ${WITNESS_VKEY}`, "group g0 any w1"];
    for (let i = 1; i <= 40; i++)
      lines.push(`group g${i} all ${Array.from({ length: i }, (_, j) => `g${j}`).join(" ")}`);
    lines.push("quorum g40");
    for (const v of await check(witnessed(1_799_999_990), pinned(...lines))) expect(v.code).toBe("verified");
    for (const v of await check(signedLog(), pinned(...lines))) expect(v.code).toBe("policy-failed");
  });
});
