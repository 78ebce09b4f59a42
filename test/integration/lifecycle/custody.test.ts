import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyPublicCommand } from "../../../src/cli/verify-public.js";
import type { ConsentReport } from "../../../src/verify/index.js";
import { runCli } from "../../helpers/cli-output.js";
import { committedRecord } from "../../helpers/poll.js";
import { serviceForSuite, type TestService } from "../../helpers/service.js";
import { newAsset, untilSealed, vconEvent } from "../../helpers/vcon-event.js";

const suite = serviceForSuite();
const dir = mkdtempSync(join(tmpdir(), "custody-"));
const file = (name: string) => join(dir, name);
type Rec = { identity: string; confirmation_status?: string; tenant_identity: string };

/** Records one event of the vCon on a tenancy's own asset for it, sealed; its record and receipt (base64). */
async function record(s: TestService, token: string, asset: string, body: unknown) {
  const res = await s.api(`/archivist/v2/${asset}/events`, { method: "POST", token, json: body });
  expect(res.status, await res.clone().text()).toBe(200);
  const made = (await res.json()) as Rec;
  await untilSealed(s, token, asset);
  const rec = await committedRecord<Rec>(s, token, `/archivist/v2/${made.identity}`);
  const receipt = Buffer.from(
    await (await s.api(`/archivist/v1/receipts/${made.identity}`, { token })).arrayBuffer(),
  );
  return { rec, receipt: receipt.toString("base64") };
}

const assetOf = (token: string) => newAsset(suite.s, token);

function transfer(
  vcon: string,
  op: "vcon_sent" | "vcon_received",
  id: string,
  peer: string,
  proof: { rec: unknown; receipt: string },
  keys: string,
) {
  const e = vconEvent(vcon, op, "2026-03-01");
  return {
    ...e,
    event_attributes: {
      ...e.event_attributes,
      transfer_id: id,
      transfer_peer: peer,
      transfer_peer_record: JSON.stringify(proof.rec),
      transfer_peer_receipt: proof.receipt,
      transfer_peer_keys: keys,
    },
  };
}

describe("chain of custody across two tenancies", () => {
  it("each side's transfer event carries the other's receipt, and each side's report proves the hop", async () => {
    const { s } = suite;
    const [a, b] = [suite.token, await s.token(s.b)];
    const keys = Buffer.from(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()).toString("base64");
    writeFileSync(file("keys.cbor"), Buffer.from(keys, "base64"));
    const vcon = crypto.randomUUID();
    const [assetA, assetB] = [await assetOf(a), await assetOf(b)];
    // A holds the vCon; it shows its record of it to B, whose vcon_received carries that proof.
    const created = await record(s, a, assetA, vconEvent(vcon, "vcon_created", "2026-03-01"));
    const received = await record(
      s,
      b,
      assetB,
      transfer(vcon, "vcon_received", "t-1", created.rec.tenant_identity, created, keys),
    );
    // B returns its vcon_received and receipt; A's vcon_sent carries them.
    const sent = await record(
      s,
      a,
      assetA,
      transfer(vcon, "vcon_sent", "t-1", received.rec.tenant_identity, received, keys),
    );
    // A forged confirmation: B's record altered after the fact.
    const altered = {
      rec: { ...received.rec, timestamp_accepted: "2020-01-01T00:00:00Z" },
      receipt: received.receipt,
    };
    await record(s, a, assetA, transfer(vcon, "vcon_sent", "t-1", "tenant/forged", altered, keys));

    const reportOf = async (token: string, name: string): Promise<ConsentReport> => {
      const bundle = await (await s.api(`/archivist/v1/evidence/vcons/${vcon}`, { token })).text();
      writeFileSync(file(name), bundle);
      const out = await runCli(
        (x) => verifyPublicCommand.run(x),
        ["bundle", file(name), "--keys", file("keys.cbor"), "--report", "--json"],
      );
      expect(out.code, out.out).toBe(0);
      return (JSON.parse(out.out) as { consent_report: ConsentReport }).consent_report;
    };
    const ofA = await reportOf(a, "a.json");
    expect(ofA.custody.map((h) => [h.direction, h.transfer_id, h.proof.state])).toEqual([
      ["sent", "t-1", "verified"],
      ["sent", "t-1", "failed"],
    ]);
    expect(ofA.custody[0]).toMatchObject({
      identity: sent.rec.identity,
      peer: received.rec.tenant_identity,
      proof: { record: received.rec.identity, operation: "vcon_received", keys: "pinned" },
    });
    expect(ofA.custody[1]?.proof).toMatchObject({
      reason: expect.stringContaining("receipt does not verify"),
    });
    const ofB = await reportOf(b, "b.json");
    expect(ofB.custody).toMatchObject([
      {
        direction: "received",
        identity: received.rec.identity,
        proof: { state: "verified", record: created.rec.identity, operation: "vcon_created" },
      },
    ]);
    // In words, for people.
    const text = await runCli(
      (x) => verifyPublicCommand.run(x),
      ["bundle", file("a.json"), "--keys", file("keys.cbor"), "--report"],
    );
    expect(text.out).toMatch(
      /custody .* sent to tenant\/.* \(transfer t-1\) .*proven by the other party's vcon_received .*under keys you pinned/,
    );
    expect(text.out).toContain("the other party's proof FAILED");
    // Without pinned keys, the hop holds only under the keys it carries.
    const unpinned = await runCli(
      (x) => verifyPublicCommand.run(x),
      ["bundle", file("a.json"), "--report", "--json"],
    );
    expect(
      (JSON.parse(unpinned.out) as { consent_report: ConsentReport }).consent_report.custody[0]?.proof,
    ).toMatchObject({
      state: "verified",
      keys: "carried",
    });
  });
});
