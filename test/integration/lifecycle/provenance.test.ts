import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { DeliveryJob } from "../../../plugins/conserver/delivery/job.js";
import * as provenance from "../../../plugins/conserver/links/provenance.js";
import type { AddOptions, JobQueue } from "../../../plugins/conserver/queue/index.js";
import { MemoryVconStore } from "../../../plugins/conserver/store/memory-store.js";
import { parseVcon } from "../../../plugins/conserver/vcon.js";
import { verifyPublicCommand } from "../../../src/cli/verify-public.js";
import { runCli } from "../../helpers/cli-output.js";
import { modelSummary } from "../../helpers/model-summary.js";
import { committedRecord } from "../../helpers/poll.js";
import { serviceForSuite } from "../../helpers/service.js";
import { newAsset, untilSealed } from "../../helpers/vcon-event.js";

const suite = serviceForSuite();
const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const dir = mkdtempSync(join(tmpdir(), "provenance-"));
const file = (name: string) => join(dir, name);

class Queue implements JobQueue<DeliveryJob> {
  readonly name = "q";
  readonly attempts = 1;
  readonly added: DeliveryJob[] = [];
  async add(_name: string, data: DeliveryJob, _opts?: AddOptions) {
    this.added.push(data);
  }
  process() {}
  async counts() {
    return { waiting: 0, delayed: 0, active: 0, failed: 0 };
  }
  async close() {}
}

/** The IETF sample call (test/fixtures) with a summary a generative model made of its recording. */
function summarised(body = "The customer asked about an extended warranty.") {
  const vcon = JSON.parse(
    readFileSync(
      new URL("../../fixtures/vcon/ietf-core03-ab_call_ext_rec.vcon.json", import.meta.url),
      "utf8",
    ),
  ) as Record<string, unknown> & { uuid: string; dialog: unknown[] };
  vcon.uuid = crypto.randomUUID();
  vcon.analysis = [modelSummary(vcon, body)];
  return vcon;
}

describe("AI provenance, registered and checked", () => {
  it("the provenance link registers each analysis's derivation; the verifier checks the vCon's analysis against it", async () => {
    const vcon = summarised();
    writeFileSync(file("vcon.json"), JSON.stringify(vcon));
    const store = new MemoryVconStore();
    store.set(vcon.uuid, parseVcon(JSON.stringify(vcon)));
    const queue = new Queue();
    await provenance.run(
      vcon.uuid,
      "provenance",
      { backend: { url: suite.s.url, client_id: "x", client_secret: "y" }, purpose: "analysis" },
      { store, log: pino({ level: "silent" }), defaultHashMode: "jcs", deliveryQueue: queue },
    );
    const [job] = queue.added;
    expect(job?.event.event_attributes).toMatchObject({
      vcon_operation: "vcon_inference_performed",
      consent_purpose: "analysis",
      payload_preimage_content_type: "application/vcon-provenance+json",
      provenance_analysis: "0",
      provenance_model: "summarizer-2",
      provenance_provider: "example-ai",
      provenance_output_sha256: sha("The customer asked about an extended warranty."),
    });
    // Delivered as the delivery worker would: an event on the vCon's asset.
    const { s, token } = suite;
    const asset = await newAsset(s, token);
    const made = (await (
      await s.api(`/archivist/v2/${asset}/events`, { method: "POST", token, json: job?.event })
    ).json()) as { identity: string };
    await untilSealed(s, token, asset);
    const record = await committedRecord<{ identity: string; confirmation_status?: string }>(
      s,
      token,
      `/archivist/v2/${made.identity}`,
    );
    writeFileSync(file("record.json"), JSON.stringify(record));
    writeFileSync(
      file("receipt.cose"),
      new Uint8Array(await (await s.api(`/archivist/v1/receipts/${made.identity}`, { token })).arrayBuffer()),
    );
    writeFileSync(
      file("keys.cbor"),
      new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()),
    );
    // Also a SCITT statement: the event's transparent statement carries its receipt.
    const st = await s.api(`/archivist/v2/${made.identity}/statement?transparent=true`, { token });
    expect(st.status, await st.clone().text()).toBe(200);
    writeFileSync(file("statement.cose"), new Uint8Array(await st.arrayBuffer()));

    const verify = (vconFile: string, how: string[]) =>
      runCli(
        (a) => verifyPublicCommand.run(a),
        ["provenance", vconFile, "--analysis", "0", ...how, "--keys", file("keys.cbor")],
      );
    const byRecord = ["--record", file("record.json"), "--receipt", file("receipt.cose")];
    const ok = await verify(file("vcon.json"), byRecord);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toMatch(
      /VERIFIED .*analysis 0 of vcon:\/\/.* is the one registered .*model summarizer-2 \(example-ai\)/,
    );
    const byStatement = await verify(file("vcon.json"), ["--statement", file("statement.cose")]);
    expect(byStatement.code, byStatement.out).toBe(0);

    // The analysis rewritten afterwards (its provenance made to agree): not the registered derivation.
    const rewritten = { ...summarised("The customer declined the warranty."), uuid: vcon.uuid };
    writeFileSync(file("rewritten.json"), JSON.stringify(rewritten));
    const bad = await verify(file("rewritten.json"), byRecord);
    expect(bad.code, bad.out).toBe(1);
    expect(bad.out).toContain("output is not the one registered");
    const badStatement = await verify(file("rewritten.json"), ["--statement", file("statement.cose")]);
    expect(badStatement.code, badStatement.out).toBe(1);
    expect(badStatement.out).toContain("does not match the statement's hash");
    // Without keys there is nothing to check with: 4.
    const none = await runCli(
      (a) => verifyPublicCommand.run(a),
      ["provenance", file("vcon.json"), ...byRecord],
    );
    expect(none.code).toBe(4);
  });
});
