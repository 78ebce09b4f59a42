import { describe, expect, it, vi } from "vitest";
import { parseBundle, verifyBundle } from "../../../src/verify/bundle/index.js";
import { bundleConsentReport, keysFromKeySet, verifyRecordReceipt } from "../../../src/verify/index.js";
import { consentReportText } from "../../../src/verify/lifecycle/report.js";
import { committedRecord } from "../../helpers/poll.js";
import { plainApplication, serviceForSuite } from "../../helpers/service.js";
import { newAsset, untilSealed, vconEvent } from "../../helpers/vcon-event.js";

const suite = serviceForSuite();

type Rec = Record<string, unknown> & {
  confirmation_status?: string;
  identity: string;
  event_attributes: Record<string, unknown>;
  erasable?: Record<string, Record<string, Record<string, unknown>>>;
};

const vconAsset = () => newAsset(suite.s, suite.token);

async function post(asset: string, body: unknown, token = suite.token): Promise<Response> {
  return suite.s.api(`/archivist/v2/${asset}/events`, { method: "POST", token, json: body });
}

/** An event of the vCon carrying a party's personal data. */
function withParty(vcon: string, op: string, extra: Record<string, unknown> = {}) {
  const e = vconEvent(vcon, op, "2026-01-02");
  return {
    ...e,
    event_attributes: {
      ...e.event_attributes,
      party_tel: "+1 555 0100",
      party_name: "Alice Example",
      ...extra,
    },
  };
}

const keys = async () =>
  keysFromKeySet(new Uint8Array(await (await suite.s.api("/.well-known/scitt-keys")).arrayBuffer()));

async function receiptOf(identity: string): Promise<Uint8Array> {
  const res = await suite.s.api(`/archivist/v1/receipts/${identity}`, { token: suite.token });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

describe("erasure beside the immutable log", () => {
  it("without a policy, records are made as before: plain values, no erasable member", async () => {
    const asset = await vconAsset();
    const res = await post(asset, withParty(crypto.randomUUID(), "vcon_created"));
    const made = (await res.json()) as Rec;
    expect(made.event_attributes.party_tel).toBe("+1 555 0100");
    expect(made.erasable).toBeUndefined();
  });

  it("refuses what would break the form: a commitment sent by a client, a non-text erasable value, reserved names, a non-administrator", async () => {
    const asset = await vconAsset();
    const forged = await post(
      asset,
      withParty(crypto.randomUUID(), "vcon_created", { x: { salted_sha256: "ab".repeat(32) } }),
    );
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ message: expect.stringContaining("only the service makes") });
    const number = await post(asset, {
      ...withParty(crypto.randomUUID(), "vcon_created", { age: 41 }),
      erasable_attributes: ["age"],
    });
    expect(number.status).toBe(400);
    for (const attributes of [["subject"], ["arc_description"], ["bad name"]]) {
      const r = await suite.s.api("/archivist/v1/erasure/policy", {
        method: "PUT",
        token: suite.token,
        json: { attributes },
      });
      expect(r.status, JSON.stringify(attributes)).toBe(400);
    }
    const plain = await plainApplication(suite.s, suite.token);
    const r = await suite.s.api("/archivist/v1/erasure/policy", {
      method: "PUT",
      token: plain.token,
      json: { attributes: ["x"] },
    });
    expect(r.status).toBe(403);
    const e = await suite.s.api("/archivist/v1/erasures", {
      method: "POST",
      token: plain.token,
      json: { vcon: `vcon://${crypto.randomUUID()}`, basis: "x" },
    });
    expect(e.status).toBe(403);
  });

  it("commits erasable attributes by a salted hash; erasure keeps every receipt valid, records who, when and why, and says so", async () => {
    const put = await suite.s.api("/archivist/v1/erasure/policy", {
      method: "PUT",
      token: suite.token,
      json: { attributes: ["party_tel", "party_name"] },
    });
    expect(await put.json()).toEqual({ attributes: ["party_name", "party_tel"] });
    expect(await (await suite.s.api("/archivist/v1/erasure/policy", { token: suite.token })).json()).toEqual({
      attributes: ["party_name", "party_tel"],
    });
    const vcon = crypto.randomUUID();
    const asset = await vconAsset();
    const ids: string[] = [];
    for (const [op, extra] of [
      ["vcon_created", {}],
      ["vcon_enhanced", { party_email: "alice@example.com" }],
    ] as const) {
      const body =
        op === "vcon_enhanced"
          ? { ...withParty(vcon, op, extra), erasable_attributes: ["party_email"] }
          : withParty(vcon, op);
      const res = await post(asset, body);
      expect(res.status, await res.clone().text()).toBe(200);
      const made = (await res.json()) as Rec;
      // The record holds the commitment; the value and salt come beside it.
      expect(made.event_attributes.party_tel).toEqual({
        salted_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(made.event_attributes.subject).toBe(`vcon://${vcon}`);
      expect(made.erasable?.event_attributes?.party_tel).toEqual({
        disclosed: { value: "+1 555 0100", salt: expect.any(String) },
      });
      ids.push(made.identity);
    }
    await untilSealed(suite.s, suite.token, asset);
    const k = await keys();
    const before = new Map<string, Uint8Array>();
    for (const id of ids) {
      const rec = await committedRecord<Rec>(suite.s, suite.token, `/archivist/v2/${id}`);
      expect(
        rec.erasable?.event_attributes?.party_email ?? rec.erasable?.event_attributes?.party_tel,
      ).toBeDefined();
      const receipt = await receiptOf(id);
      expect(verifyRecordReceipt(rec, receipt, k)).toMatchObject({ ok: true });
      before.set(id, receipt);
    }

    // The subject's data erased, under a basis, by the tenancy's administrator: its record written
    // by the write path's group commit, in its mode for a write that commits with the erasure.
    const writePath = suite.s.service.ctx.writePath;
    const alone = vi.spyOn(writePath, "writeAlone");
    const res = await suite.s.api("/archivist/v1/erasures", {
      method: "POST",
      token: suite.token,
      json: { vcon: `vcon://${vcon}`, basis: "GDPR Art. 17 request 2026-0042" },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const answer = (await res.json()) as {
      erasures: string[];
      erased: Array<{ record: string; attribute: string }>;
    };
    expect(answer.erasures).toHaveLength(1);
    expect(answer.erased.map((e) => `${e.record} ${e.attribute}`).sort()).toEqual(
      [
        `${ids[0]} event_attributes.party_name`,
        `${ids[0]} event_attributes.party_tel`,
        `${ids[1]} event_attributes.party_email`,
        `${ids[1]} event_attributes.party_name`,
        `${ids[1]} event_attributes.party_tel`,
      ].sort(),
    );
    const erasure = await committedRecord<Rec>(suite.s, suite.token, `/archivist/v2/${answer.erasures[0]}`);
    expect(erasure.event_attributes).toMatchObject({
      vcon_operation: "vcon_attributes_erased",
      subject: `vcon://${vcon}`,
      erased_records: ids,
      erasure_basis: "GDPR Art. 17 request 2026-0042",
    });
    expect(alone).toHaveBeenCalledTimes(1);
    alone.mockRestore();
    await untilSealed(suite.s, suite.token, asset);
    // Committed and sealed like any other record: its own receipt verifies.
    const sealedErasure = await committedRecord<Rec>(
      suite.s,
      suite.token,
      `/archivist/v2/${answer.erasures[0]}`,
    );
    expect(
      verifyRecordReceipt(sealedErasure, await receiptOf(answer.erasures[0] as string), k),
    ).toMatchObject({
      ok: true,
    });

    // Every record still verifies with the receipts it had, and says the values are gone.
    for (const id of ids) {
      const res = await suite.s.api(`/archivist/v2/${id}`, { token: suite.token });
      const text = await res.text();
      expect(text).not.toContain("+1 555 0100");
      expect(text).not.toContain("Alice Example");
      const rec = JSON.parse(text) as Rec;
      expect(rec.erasable?.event_attributes?.party_tel).toEqual({
        erased: {
          by: expect.any(String),
          at: expect.any(String),
          basis: "GDPR Art. 17 request 2026-0042",
          record: answer.erasures[0],
        },
      });
      expect(verifyRecordReceipt(rec, before.get(id) as Uint8Array, k)).toMatchObject({ ok: true });
      expect(verifyRecordReceipt(rec, await receiptOf(id), k)).toMatchObject({ ok: true });
    }
    // Gone from the evidentiary store, not only from the answers.
    const rows = await suite.s.service.ctx.db.query<{ value: string | null; salt: string | null }>(
      "select value, salt from erasable_values where erasure_record = $1",
      [answer.erasures[0]],
    );
    expect(rows.length).toBe(5);
    expect(rows.every((r) => r.value === null && r.salt === null)).toBe(true);

    // Asked again: nothing left to erase, nothing recorded.
    const again = (await (
      await suite.s.api("/archivist/v1/erasures", {
        method: "POST",
        token: suite.token,
        json: { vcon: `vcon://${vcon}`, basis: "again" },
      })
    ).json()) as { erasures: string[]; already_erased: unknown[] };
    expect(again.erasures).toEqual([]);
    expect(again.already_erased).toHaveLength(5);

    // The vCon's bundle verifies; its report says erased by whom, the erasure proven in the log.
    const bundle = parseBundle(
      await (await suite.s.api(`/archivist/v1/evidence/vcons/${vcon}`, { token: suite.token })).text(),
    );
    const verdict = verifyBundle(bundle, {
      policy: (await import("../../../src/verify/verdict/index.js")).emptyPolicy(),
      serviceKeys: k,
      described: ["keys"],
    });
    expect(verdict.code, verdict.problems.join("; ")).toBe("verified");
    expect(verdict.records.flatMap((r) => r.erasable ?? []).filter((e) => e.state === "erased")).toHaveLength(
      5,
    );
    expect(verdict.unsigned.join("\n")).toContain("records[].erasable");
    const report = bundleConsentReport(bundle, verdict);
    expect(report.erasures).toHaveLength(5);
    expect(
      report.erasures.every((e) => e.erasure_proven && e.basis === "GDPR Art. 17 request 2026-0042"),
    ).toBe(true);
    expect(consentReportText(report).join("\n")).toMatch(
      /erased event_attributes\.party_tel of assets\/.* under GDPR Art\. 17 request 2026-0042 \(erasure record .*, proven in the log\)/,
    );

    // A forged disclosure (someone "restoring" a value) is caught against the signed commitment.
    const forged = structuredClone(bundle);
    const rec0 = forged.records[0]?.record as Rec;
    const salt = Buffer.alloc(32).toString("base64");
    (rec0.erasable as Record<string, Record<string, unknown>>).event_attributes = {
      party_tel: { disclosed: { value: "+1 555 0100", salt } },
    };
    const caught = verifyBundle(forged, {
      policy: (await import("../../../src/verify/verdict/index.js")).emptyPolicy(),
      serviceKeys: k,
      described: ["keys"],
    });
    expect(caught.code).toBe("tampered");
    expect(caught.problems.join("; ")).toContain("does not hash to the record's commitment");
  });

  it("stores no value of an event that is refused: no value without a record", async () => {
    const asset = await vconAsset();
    const plain = await plainApplication(suite.s, suite.token);
    const count = async () =>
      Number(
        (await suite.s.service.ctx.db.query<{ n: string }>("select count(*) as n from erasable_values"))[0]
          ?.n,
      );
    const n = await count();
    // No write access to the asset: refused after the values were committed.
    const refused = await post(
      asset,
      { ...withParty(crypto.randomUUID(), "vcon_created"), erasable_attributes: ["party_tel"] },
      plain.token,
    );
    expect(refused.status).toBeGreaterThanOrEqual(400);
    // The values rode with the event into its group's transaction: refused there, none was stored.
    expect(await count()).toBe(n);
  });
});
