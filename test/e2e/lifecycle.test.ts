import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import type { RunningConserver } from "../../plugins/conserver/runtime/run-conserver.js";
import { exportCommand } from "../../src/cli/export.js";
import { verifyPublicCommand } from "../../src/cli/verify-public.js";
import { keysFromKeySet, verifyRecordReceipt } from "../../src/verify/index.js";
import { keyFingerprint } from "../../src/verify/verdict/fingerprint.js";
import { browserRunnable, chromiumForSuite, screenshot } from "../helpers/browser.js";
import { runCli } from "../helpers/cli-output.js";
import { modelSummary } from "../helpers/model-summary.js";
import { until } from "../helpers/poll.js";
import { startTestService, type TestService } from "../helpers/service.js";
import {
  deleteKeys,
  REDIS_URL,
  redisUp,
  runTestConserver,
  uniqueName,
} from "../integration/conserver/redis-env.js";

// The vCon lifecycle end to end (docs/vcon-lifecycle.md): the IETF sample vCons (test/fixtures)
// through the conserver runtime (Redis lists, the links, the delivery worker) into the service:
// consent granted for two purposes, one revoked; a later inference for the revoked purpose refused
// by the consent gate, and, forced through by a chain without the gate, flagged in the report; the
// subject's data erased with every receipt still verifying; the report verified offline by the CLI
// and in Chromium (on /verify, and in the console a compliance officer reads).
const up = await redisUp();
const runnable = browserRunnable && up;
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/vcon/${name}`, import.meta.url), "utf8")) as Record<
    string,
    unknown
  > & { uuid: string; dialog: unknown[] };
const prefix = uniqueName("lifecycle");
const dir = mkdtempSync(join(tmpdir(), "lifecycle-e2e-"));
const file = (name: string) => join(dir, name);
const PERSONAL = ["party_0_tel", "party_0_name", "party_1_tel", "party_1_name"];

// The call, with a summary a model made of its recording (the provenance link registers it).
const call = fixture("ietf-core03-ab_call_ext_rec.vcon.json");
call.analysis = [modelSummary(call, "The caller asked about an extended warranty.")];
const email = fixture("ietf-core03-ab_email_prob_followup_text_thread.vcon.json");

let s: TestService;
let token: string;
let redis: Redis;
let conserver: RunningConserver;

const backend = () => `{url: "${s.url}", client_id: "${s.a.clientId}", client_secret: "${s.a.clientSecret}"}`;
const list = (chain: string) => `${prefix}-${chain}`;

/** Starts the service and the conserver runtime in front of it (the suite's `start`). */
async function startBoth(): Promise<TestService> {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  token = await s.token(s.a);
  redis = new Redis(REDIS_URL);
  // The subject's data is erasable in this tenancy before any of it is recorded.
  const policy = await s.api("/archivist/v1/erasure/policy", {
    method: "PUT",
    token,
    json: { attributes: PERSONAL },
  });
  expect(policy.status).toBe(200);
  const chain = (name: string, links: string[]) =>
    `  ${name}: {links: [${links.join(", ")}], ingress_lists: [${list(name)}], egress_lists: [], enabled: 1}`;
  conserver = await runTestConserver(
    prefix,
    `
links:
  created: {module: archivist, options: {vcon_operation: created, party_attributes: true, backend: ${backend()}}}
  grant: {module: archivist, options: {vcon_operation: consent_accepted, purpose: [ai_inference, analysis], backend: ${backend()}}}
  revoke: {module: archivist, options: {vcon_operation: consent_revoked, purpose: ai_inference, backend: ${backend()}}}
  gate_ai: {module: consent_gate, options: {purpose: ai_inference, operation: inference_performed, backend: ${backend()}}}
  gate_analysis: {module: consent_gate, options: {purpose: analysis, operation: inference_performed, backend: ${backend()}}}
  summarise: {module: provenance, options: {purpose: ai_inference, backend: ${backend()}}}
  analyse: {module: archivist, options: {vcon_operation: inference_performed, purpose: analysis, backend: ${backend()}}}
chains:
${chain("created", ["created"])}
${chain("grant", ["grant"])}
${chain("revoke", ["revoke"])}
${chain("analysis", ["gate_analysis", "analyse"])}
${chain("inference", ["gate_ai", "summarise"])}
${chain("forced", ["summarise"])}
delivery: {queue: ${prefix}-delivery, prefix: ${prefix}, attempts: 3, backoff_ms: 20}
`,
  );
  return s;
}

/** Stops the conserver and removes its Redis keys (the browser is closed by now, the service not yet). */
async function stopConserver(): Promise<void> {
  await conserver?.close();
  if (redis) {
    await deleteKeys(redis, prefix);
    await deleteKeys(redis, `DLQ:${prefix}`);
    await redis.quit();
  }
  s?.service.server?.closeAllConnections();
}

const browser = chromiumForSuite(startBoth, { runnable, stop: stopConserver });

type Rec = { identity: string; event_attributes: Record<string, unknown>; confirmation_status: string };

async function events(uuid: string): Promise<Rec[]> {
  const q = encodeURIComponent(`vcon://${uuid}`);
  const res = await s.api(`/archivist/v2/assets/-/events?event_attributes.subject=${q}`, { token });
  return ((await res.json()) as { events: Rec[] }).events;
}

/** Pushes the vCon on a chain's ingress list (stored first, as vcon-server does). */
async function push(chain: string, vcon: { uuid: string }): Promise<void> {
  await redis.set(`${prefix}:vcon:${vcon.uuid}`, JSON.stringify(vcon));
  await redis.rpush(list(chain), vcon.uuid);
}

/** Waits until the service holds `n` events of the vCon with this operation. */
const recorded = (uuid: string, op: string, n = 1) =>
  until(
    async () =>
      (await events(uuid)).filter((e) => e.event_attributes.vcon_operation === op).length >= n
        ? true
        : undefined,
    60_000,
  );

describe.skipIf(!runnable)("the vCon lifecycle, end to end", () => {
  it("consent per purpose, a revocation that stops processing, erasure beside the log, the report proven offline", async () => {
    // Created (the subject's data committed by a salted hash), then consent for two purposes.
    await push("created", call);
    await push("created", email);
    await recorded(call.uuid, "vcon_created");
    await recorded(email.uuid, "vcon_created");
    const [created] = (await events(call.uuid)).filter(
      (e) => e.event_attributes.vcon_operation === "vcon_created",
    );
    for (const name of PERSONAL)
      expect(created?.event_attributes[name], name).toEqual({
        salted_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    await push("grant", call);
    await recorded(call.uuid, "vcon_consent_accepted");
    // Analysis is granted: the gate lets it through.
    await push("analysis", call);
    await recorded(call.uuid, "vcon_inference_performed");
    await recorded(call.uuid, "vcon_consent_verified.analysis");
    // AI inference is revoked; a later inference for it is refused and dead-lettered with the reason.
    await push("revoke", call);
    await recorded(call.uuid, "vcon_consent_revoked");
    await push("inference", call);
    await until(
      async () =>
        (await redis.lrange(`DLQ:${list("inference")}`, 0, -1)).includes(call.uuid) ? true : undefined,
      60_000,
    );
    const reason = JSON.parse((await redis.hget(`DLQ:${list("inference")}:reasons`, call.uuid)) ?? "{}");
    expect(reason).toMatchObject({
      code: "CONSENT_REFUSED",
      message: expect.stringMatching(
        /^vcon_inference_performed refused: consent for ai_inference was revoked \(assets\//,
      ),
    });
    await recorded(call.uuid, "vcon_processing_refused.ai_inference");
    expect(
      (await events(call.uuid)).filter(
        (e) => e.event_attributes.vcon_operation === "vcon_inference_performed",
      ),
    ).toHaveLength(1);
    // Forced through by a chain without the gate: recorded, and a violation.
    await push("forced", call);
    await recorded(call.uuid, "vcon_inference_performed", 2);

    // The subject's data erased: every receipt still verifies.
    const erased = await s.api("/archivist/v1/erasures", {
      method: "POST",
      token,
      json: { vcon: `vcon://${call.uuid}`, basis: "GDPR Art. 17: the caller's request of 2026-03-01" },
    });
    expect(erased.status, await erased.clone().text()).toBe(200);
    expect(((await erased.json()) as { erased: unknown[] }).erased).toHaveLength(PERSONAL.length);
    // A breach of the call's data: detected, and the regulator told at once (within GDPR's 72 h).
    const callAsset = (created?.identity ?? "").replace(/\/events\/.*$/, "");
    for (const op of ["vcon_breach_detected", "vcon_regulator_notified"]) {
      const res = await s.api(`/archivist/v2/${callAsset}/events`, {
        method: "POST",
        token,
        json: {
          operation: "Record",
          behaviour: "RecordEvidence",
          event_attributes: {
            arc_display_type: op,
            vcon_operation: op,
            subject: `vcon://${call.uuid}`,
            breach_id: "INC-7",
          },
        },
      });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    const keyBytes = new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer());
    writeFileSync(file("keys.cbor"), keyBytes);
    const keys = keysFromKeySet(keyBytes);
    const all = await until(async () => {
      await s.service.workers.flush();
      const e = await events(call.uuid);
      return e.length === 10 && e.every((x) => ["CONFIRMED", "UNEQUIVOCAL"].includes(x.confirmation_status))
        ? e
        : undefined;
    }, 60_000);
    for (const e of all) {
      const res = await s.api(`/archivist/v1/receipts/${e.identity}`, { token });
      expect(res.status, e.identity).toBe(200);
      const record = (await (await s.api(`/archivist/v2/${e.identity}`, { token })).json()) as Rec;
      expect(
        verifyRecordReceipt(record, new Uint8Array(await res.arrayBuffer()), keys),
        e.identity,
      ).toMatchObject({
        ok: true,
      });
    }

    // The report, offline, by the CLI: exported, then verified with the keys pinned.
    const exported = await runCli(
      (a) => exportCommand.run(a),
      [
        `vcon://${call.uuid}`,
        "--url",
        s.url,
        "--token",
        token,
        "--keys",
        file("keys.cbor"),
        "--out",
        file("evidence.json"),
      ],
    );
    expect(exported.code, exported.out).toBe(0);
    const cli = await runCli(
      (a) => verifyPublicCommand.run(a),
      ["bundle", file("evidence.json"), "--keys", file("keys.cbor"), "--report"],
    );
    expect(cli.code, cli.out).toBe(0);
    expect(cli.out).toContain("purpose ai_inference: revoked");
    expect(cli.out).toContain("purpose analysis: granted");
    // The gate recorded its verification before the inference it let through; the forced one has none.
    expect(cli.out).toMatch(
      /processing .* AI inference performed for analysis .*: within consent; consent verified for analysis by assets\//,
    );
    expect(cli.out).toMatch(
      /VIOLATION: processing for ai_inference after consent was revoked .*; UNVERIFIED: no consent verification recorded before it for ai_inference/,
    );
    expect(cli.out).toContain(
      "1 training or inference purpose(s) processed WITHOUT a recorded consent verification",
    );
    expect(cli.out).toMatch(
      /processing .*: VIOLATION: processing for ai_inference after consent was revoked/,
    );
    expect(cli.out).toMatch(/refused .* vcon_inference_performed: consent for ai_inference was revoked/);
    expect(
      cli.out.match(
        /erased event_attributes\.party_\d_(tel|name) of .* \(erasure record .*, proven in the log\)/g,
      ),
    ).toHaveLength(4);
    expect(cli.out).toContain("1 VIOLATION(S) of consent among 2 processing event(s)");
    expect(cli.out).toContain("breach INC-7: regulator notified, detected");
    expect(cli.out).toMatch(/met: the regulator notified \d+\.\d h after detection \(within 72 h\)/);
    expect(cli.out).toContain("no breach notification deadline missed");

    // In Chromium: the same bundle dropped on /verify, with the service's keys pinned by fingerprint.
    await browser.page.setViewportSize({ width: 1400, height: 900 });
    await browser.page.goto(`${s.url}/verify`);
    await browser.page.waitForSelector("#verdict:not([data-ok])");
    await browser.page.click("#trust-roots summary");
    await browser.page.fill(
      "#policy",
      [...keys].map(([kid, k]) => `service-key ${kid} ${keyFingerprint(k)}`).join("\n"),
    );
    await browser.page.setInputFiles("#file", {
      name: "evidence.json",
      mimeType: "application/json",
      buffer: readFileSync(file("evidence.json")),
    });
    const v = await browser.page.waitForSelector("#verdict[data-ok]", { timeout: 30_000 });
    expect(await v.getAttribute("data-code")).toBe("verified");
    await browser.page.waitForSelector("#consent-report");
    expect(await browser.page.getAttribute("#consent-banner", "data-violations")).toBe("1");
    expect(
      await browser.page.$$eval("#consent-purposes tbody tr", (rows) =>
        rows.map((r) => [(r as HTMLElement).dataset.purpose, (r as HTMLElement).dataset.state]),
      ),
    ).toEqual([
      ["ai_inference", "revoked"],
      ["analysis", "granted"],
    ]);
    expect(
      await browser.page.$$eval("#consent-processing tbody tr", (rows) =>
        rows.map((r) => (r as HTMLElement).dataset.violation),
      ),
    ).toEqual(["false", "true"]);
    expect(
      await browser.page.$$eval("#consent-processing tbody tr", (rows) =>
        rows.map((r) => (r as HTMLElement).dataset.unverified),
      ),
    ).toEqual(["false", "true"]);
    expect(await browser.page.textContent("#consent-processing")).toContain(
      "VIOLATION: processing for ai_inference after consent was revoked",
    );
    expect(await browser.page.$$eval("#consent-refusals li", (l) => l.length)).toBe(1);
    expect(
      await browser.page.$$eval("#consent-breaches tbody tr", (rows) =>
        rows.map((r) => [
          (r as HTMLElement).dataset.breach,
          (r as HTMLElement).dataset.stage,
          (r as HTMLElement).dataset.missed,
        ]),
      ),
    ).toEqual([["INC-7", "regulator_notified", "false"]]);
    expect(await browser.page.$$eval("#consent-erasures li[data-proven=true]", (l) => l.length)).toBe(4);
    await screenshot(browser.page, "verify-lifecycle-report-desktop");
    await browser.page.setViewportSize({ width: 390, height: 844 });
    await screenshot(browser.page, "verify-lifecycle-report-phone");

    // And in the console, where a compliance officer reads the vCon's trail.
    await browser.page.setViewportSize({ width: 1400, height: 900 });
    await browser.page.goto(`${s.url}/console#vcon=${call.uuid}`);
    await browser.page.fill("#client-id", s.a.clientId);
    await browser.page.fill("#client-secret", s.a.clientSecret);
    await browser.page.click("#signin-button");
    await browser.page.waitForSelector("#consent-report", { timeout: 30_000 });
    expect(await browser.page.getAttribute("#consent-banner", "data-violations")).toBe("1");
    expect(await browser.page.textContent("#consent-banner")).toBe(
      "1 violation(s) of consent among 2 processing event(s)",
    );
    // The erased attributes read as erased, by whom and why, on the record that held them.
    const erasedCells = await browser.page.$$eval("td[data-erasable=erased]", (tds) =>
      tds.map((td) => td.textContent ?? ""),
    );
    expect(erasedCells).toHaveLength(4);
    for (const t of erasedCells)
      expect(t).toMatch(/erased by .* under GDPR Art\. 17: the caller's request of 2026-03-01/);
    await screenshot(browser.page, "console-lifecycle-report-desktop");
  }, 300_000);
});
