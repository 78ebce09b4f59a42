import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { hashVcon, parseVcon } from "../../plugins/conserver/vcon.js";
import { ed25519PublicKey, formatVkey } from "../../src/core/log/note-sign.js";
import { eventToStatement } from "../../src/core/scitt/index.js";
import { COSIGNATURE_V1, ED25519 } from "../../src/formats/tlog/index.js";
import { parseBundle, verifyBundle } from "../../src/verify/bundle/index.js";
import { keysFromKeySet, verifyRecordReceipt } from "../../src/verify/index.js";
import { keyFingerprint } from "../../src/verify/verdict/fingerprint.js";
import { TRUST_WORDS } from "../../src/web/trust.js";
import { type RunningWitness, startWitness } from "../../src/witness/server.js";
import { WitnessState } from "../../src/witness/state.js";
import { browserRunnable, chromiumForSuite, screenshot } from "../helpers/browser.js";
import { until } from "../helpers/poll.js";
import { freePort } from "../helpers/ports.js";
import { startTestService, type TestService } from "../helpers/service.js";
import { untilSealed, vconEvent } from "../helpers/vcon-event.js";
import { deterministicSigner, vectorPublicKey } from "../helpers/vector-key.js";

// The auditors' console driven in Debian's Chromium at a desktop's and a phone's width, on a
// seeded tenancy: a vCon with asset events, an asset-free event and a registered statement; a
// dozen other assets for the table; a witness cosigning the log.
const WIDE = { width: 1400, height: 900 };
const NARROW = { width: 390, height: 844 };

let s: TestService;
let witness: RunningWitness | undefined;
let token: string;
let asset: string;
let tenant: string;
let freeEvent: string;
let registered: string;
let witnessVkey: string;
const vcon = crypto.randomUUID();
const today = new Date().toISOString().slice(0, 10);
const WITNESS = "console.test/witness";

const json = async <T>(r: Promise<Response>): Promise<T> => (await (await r).json()) as T;

async function newAsset(attributes: Record<string, string>): Promise<string> {
  const a = await json<{ identity: string; tenant_identity: string }>(
    s.api("/archivist/v2/assets", { method: "POST", token, json: { attributes } }),
  );
  tenant = a.tenant_identity.replace("tenant/", "");
  return a.identity;
}

const template = (payload: string) => ({
  arc_display_type: "vcon_analyze",
  vcon_operation: "vcon_analyze",
  payload,
  payload_hash_alg: "SHA-256",
  payload_preimage_content_type: "application/vcon+json",
  subject: `vcon://${vcon}`,
  timestamp_declared: `${today}T00:00:00Z`,
  vcon_draft_version: "01",
});

/** Starts the service and the witness and seeds the tenancy (the suite's `start`). */
async function startAndSeed(): Promise<TestService> {
  // The witness's key is made first: the service is started knowing it.
  const state = new WitnessState(mkdtempSync(join(tmpdir(), "console-witness-")));
  const port = await freePort();
  witnessVkey = formatVkey(WITNESS, COSIGNATURE_V1, ed25519PublicKey(state.seed()));
  s = await startTestService({
    ARCHIVIST_SEAL_INTERVAL_MS: "100",
    ARCHIVIST_WITNESSES: `${witnessVkey} http://127.0.0.1:${port}`,
    ARCHIVIST_WITNESS_QUORUM: "1",
  });
  token = await s.token(s.a);
  for (let i = 1; i <= 10; i++)
    await newAsset({
      arc_display_type: "call",
      arc_display_name: `Routine call ${String(i).padStart(2, "0")}`,
    });
  await newAsset({ arc_display_type: "Document", arc_display_name: "Consent form" });
  asset = await newAsset({
    arc_display_type: "vcon",
    arc_display_name: "Call 42 (billing dispute)",
    subject: `vcon://${vcon}`,
  });
  // Declared long before it was accepted (flagged), then declared today (not flagged).
  for (const [op, date] of [
    ["vcon_create", "2025-03-01"],
    ["vcon_update", today],
  ] as const)
    await s.api(`/archivist/v2/${asset}/events`, { method: "POST", token, json: vconEvent(vcon, op, date) });
  freeEvent = (
    await json<{ identity: string }>(
      s.api("/archivist/v1/events", {
        method: "POST",
        token,
        json: { attributes: template("cd".repeat(32)), trails: [`vcon://${vcon}`] },
      }),
    )
  ).identity;
  await s.api("/archivist/v1/scitt/keys", {
    method: "POST",
    token,
    json: { kid: "console-key", public_jwk: vectorPublicKey.jwk },
  });
  const statement = eventToStatement(
    template("ef".repeat(32)),
    { issuer: "https://conserver.example", kid: "console-key" },
    deterministicSigner,
  );
  const reg = await s.api("/entries", {
    method: "POST",
    headers: { "content-type": "application/cose", authorization: `Bearer ${token}` },
    body: Buffer.from(statement),
    redirect: "manual",
  });
  expect([201, 202, 303]).toContain(reg.status);
  await s.api("/archivist/v1/compliance_policies", {
    method: "POST",
    token,
    json: {
      compliance_type: "COMPLIANCE_SINCE",
      display_name: "Recorded within ten years",
      event_display_type: "vcon_create",
      time_period_seconds: 315_360_000,
    },
  });
  await untilSealed(s, token, asset);
  registered = await until(async () => {
    const found = await json<{ statements: Array<{ kind: string; identity: string }> }>(
      s.api(`/archivist/v1/statements?subject=${encodeURIComponent(`vcon://${vcon}`)}`, { token }),
    );
    return found.statements.find((f) => f.kind === "registered")?.identity;
  });
  for (const id of [freeEvent, registered])
    await until(async () => {
      await s.service.workers.flush();
      const r = await json<{ confirmation_status: string }>(s.api(`/archivist/v1/${id}`, { token }));
      return ["CONFIRMED", "UNEQUIVOCAL"].includes(r.confirmation_status) ? true : undefined;
    }, 30_000);
  // The witness knows the log's key once the log has its first checkpoint (which names its origin).
  const logVkey = (await (await fetch(`${s.url}/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()).trim();
  witness = await startWitness(
    { name: WITNESS, state, logs: [logVkey], log: pino({ level: "silent" }) },
    { host: "127.0.0.1", port },
  );
  await until(async () => {
    await s.service.workers.flush();
    const note = await (await fetch(`${s.url}/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text();
    return note.includes(`\u2014 ${WITNESS} `) ? true : undefined;
  }, 30_000);
  return s;
}
const browser = chromiumForSuite(startAndSeed, { stop: async () => witness?.close(), hookTimeout: 120_000 });

const status = async () => {
  const v = await browser.page.waitForSelector("#status[data-ok]", { timeout: 20_000 });
  return { ok: await v.getAttribute("data-ok"), text: (await v.textContent()) ?? "" };
};

/**
 * Waits for the trail to show `n` records. On a loaded machine a load can take long; when it never
 * comes, the failure says what the page said instead (a refusal, a load still under way).
 */
async function trailShows(n: number): Promise<void> {
  try {
    await browser.page.waitForFunction((k) => document.querySelectorAll("#trail > li").length === k, n, {
      timeout: 60_000,
    });
  } catch (err) {
    const seen = await browser.page.evaluate(() => ({
      records: document.querySelectorAll("#trail > li").length,
      status: document.querySelector("#status")?.textContent ?? "",
      address: location.hash,
    }));
    throw new Error(
      `the trail never showed ${n} record(s): ${JSON.stringify(seen)} (${(err as Error).message})`,
    );
  }
}

/** Elements reaching past the screen's right edge (none: nothing scrolls sideways). */
const overflowing = () =>
  browser.page.evaluate(() =>
    Array.from(document.querySelectorAll("main *"))
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
      .map((e) => `${e.tagName}.${e.className}: ${(e.textContent ?? "").slice(0, 40)}`),
  );

const rows = () =>
  browser.page.$$eval("#assets-table tbody tr", (trs) =>
    trs.map((tr) => Array.from(tr.querySelectorAll("td")).map((td) => td.textContent ?? "")),
  );

async function signIn(): Promise<void> {
  await browser.page.fill("#client-id", s.a.clientId);
  await browser.page.fill("#client-secret", s.a.clientSecret);
  await browser.page.click("#signin-button");
  await browser.page.waitForSelector("#assets-table");
}

const trailSteps = () =>
  browser.page.$$eval("#trail > li", (lis) =>
    lis.map((li) => ({
      title: li.querySelector("h3")?.textContent ?? "",
      kind: li.querySelector(".badge.kind")?.textContent ?? "",
      receipt: (li as HTMLElement).dataset.receipt,
      code: (li as HTMLElement).dataset.code,
      gap: (li as HTMLElement).dataset.gap,
      text: li.textContent ?? "",
    })),
  );

describe.skipIf(!browserRunnable)("the auditors' console in Chromium", () => {
  it("says where credentials come from, and refuses wrong ones naming why", async () => {
    await browser.page.setViewportSize(WIDE);
    await browser.page.goto(`${s.url}/console`);
    const help = (await browser.page.textContent("#signin")) ?? "";
    expect(help).toContain("data/bootstrap.json");
    expect(help).toContain("/archivist/iam/v1/applications");
    await browser.page.fill("#client-id", s.a.clientId);
    await browser.page.fill("#client-secret", "not-the-secret");
    await browser.page.click("#signin-button");
    expect(await status()).toMatchObject({ ok: "false", text: expect.stringMatching(/^sign-in refused/) });
    expect(await browser.page.isHidden("#workspace")).toBe(true);
    await screenshot(browser.page, "console-signin-refused");
  });

  it("signs in as the application's display name, keeping the token in the page's memory only", async () => {
    await signIn();
    expect(await browser.page.textContent("#who")).toBe(
      `Signed in as Org A owner (client ${s.a.clientId}) in Org A. The token is kept in this page's memory only.`,
    );
    // Said once: the line above the workspace, not a second time in the status box.
    const said = await browser.page.evaluate(
      () => (document.querySelector("main")?.textContent ?? "").split("Signed in as").length - 1,
    );
    expect(said).toBe(1);
    const stores = await browser.page.evaluate(() => ({
      session: Object.keys(sessionStorage),
      local: Object.keys(localStorage),
      cookies: document.cookie,
    }));
    expect(stores).toEqual({ session: [], local: [], cookies: "" });
  });

  it("lists assets and vCons in a table: name, type, status, last event, event count; newest event first", async () => {
    const [first, second] = await rows();
    expect(first?.[0]).toContain("Call 42 (billing dispute)");
    expect(first?.[0]).toContain(`vcon://${vcon}`);
    expect(first?.slice(1, 2)).toEqual(["vcon"]);
    expect(first?.[2]).toMatch(/^(CONFIRMED|UNEQUIVOCAL)$/);
    expect(first?.[3]).toMatch(/\d{4}/);
    expect(first?.[4]).toBe("3");
    expect(second?.[0]).toContain("Consent form");
    expect(second?.[4]).toBe("1");
    expect(await browser.page.textContent("#assets-page")).toBe("1–10 of 12");
    // The count column says what it counts (a vCon's trail counts otherwise: see the trail test).
    expect(await browser.page.textContent("#assets-table th:last-child")).toBe("Asset events");
    expect(await browser.page.getAttribute("#assets-table th:last-child", "title")).toMatch(
      /^The events on the asset you may read, its creation \(NewAsset\) included\./,
    );
    // The search box is followed by its result, not by the table.
    const order = await browser.page.evaluate(() =>
      Array.from(document.querySelectorAll(".console-main > *")).map((e) => e.id),
    );
    expect(order.slice(0, 3)).toEqual(["find-form", "result", "assets"]);
    await screenshot(browser.page, "console-assets-desktop");
  });

  it("pages with the service's tokens, sorts by name, and filters by text", async () => {
    await browser.page.click("#assets-next");
    await browser.page.waitForFunction(
      () => document.querySelector("#assets-page")?.textContent === "11–12 of 12",
    );
    expect(await rows()).toHaveLength(2);
    expect(await browser.page.isDisabled("#assets-next")).toBe(true);
    await browser.page.click("#assets-prev");
    await browser.page.waitForFunction(
      () => document.querySelector("#assets-page")?.textContent === "1–10 of 12",
    );
    await browser.page.click("#assets-table th button.sort:has-text('Name or subject')");
    await browser.page.waitForSelector("#assets-table th[aria-sort='ascending']");
    const names = (await rows()).map((r) => (r[0] ?? "").split(/assets\/|vcon:\/\//)[0]);
    expect(names.slice(0, 3)).toEqual(["Call 42 (billing dispute)", "Consent form", "Routine call 01"]);
    await browser.page.fill("#asset-filter", "BILLING");
    await browser.page.click("#asset-filter-button");
    await browser.page.waitForFunction(
      () => document.querySelectorAll("#assets-table tbody tr").length === 1,
    );
    expect((await rows())[0]?.[0]).toContain("Call 42");
    await browser.page.fill("#asset-filter", "no such asset");
    await browser.page.click("#asset-filter-button");
    await browser.page.waitForSelector("#assets-result p.note");
    expect(await browser.page.textContent("#assets-result")).toBe("No asset you may read matches.");
    await browser.page.fill("#asset-filter", "");
    await browser.page.selectOption("#asset-order", "LAST_EVENT");
    await browser.page.waitForFunction(() =>
      document.querySelector("#assets-table tbody tr td")?.textContent?.startsWith("Call 42"),
    );
  });

  it("opens a vCon from the table: its asset events, asset-free event and registered statement, each record's facts", async () => {
    await browser.page.click("#assets-table tbody tr:first-child td.name a");
    // The trail's verdict, not a line said before it ("Signed in", "Loading…").
    await browser.page.waitForSelector("#status[data-code]", { timeout: 20_000 });
    expect(await status()).toMatchObject({
      ok: "true",
      text: `SELF-CONSISTENT, KEYS NOT PINNED: 4 record(s) of vcon://${vcon}, every receipt valid under the keys this service serves`,
    });
    expect(new URL(browser.page.url()).hash).toBe(`#vcon=${vcon}`);
    expect(await browser.page.textContent("#trail-assets")).toBe(
      "Recorded on asset Call 42 (billing dispute)",
    );
    expect(await browser.page.getAttribute("#trail-assets a", "href")).toBe(
      `#asset=${asset.replace("assets/", "")}`,
    );
    // The trail says what it counts, and how that meets the table's 3 events on the asset (its
    // creation included, which names no vCon and so is on the asset's own trail only).
    expect(await browser.page.textContent("#trail-count")).toBe(
      "Trail: 4 record(s): 2 asset events, 1 asset-free event, 1 registered statement; 4 receipt(s) verified in this browser",
    );
    expect(await browser.page.textContent("#trail-counts")).toBe(
      "The table counts 3 asset events on Call 42 (billing dispute), its creation included: 2 name this vCon and are in this trail; the other 1 is on the asset's own trail.",
    );
    const steps = await trailSteps();
    expect(steps.map((x) => [x.title, x.kind, x.receipt, x.code])).toEqual([
      ["vcon_create", "asset event", "true", "self-consistent-unpinned"],
      ["vcon_update", "asset event", "true", "self-consistent-unpinned"],
      ["vcon_analyze", "asset-free event", "true", "self-consistent-unpinned"],
      ["vcon_analyze", "registered statement", "true", "self-consistent-unpinned"],
    ]);
    const [create, update, free, reg] = steps;
    expect(create?.text).toMatch(/OperationRecord/);
    expect(create?.text).toMatch(/PayloadSHA-256 (ab){32}/);
    expect(create?.text).toContain("vCon formapplication/vcon+json, vCon draft 01");
    expect(create?.text).toContain(`Subjectvcon://${vcon}`);
    expect(create?.text).toMatch(/Accepted fromOrg A owner \(/);
    expect(create?.text).not.toContain("(not declared)");
    expect(create?.text).toMatch(
      /receipt checks out under the keys this service serves \(log entry \d+ \(MMR position \d+\); MMR and RFC 9162 profiles\)/,
    );
    expect(create?.text).toMatch(/Statementsigned statement, issuer http/);
    // Declared in March 2025, accepted today: flagged; declared today: not.
    expect([create?.gap, update?.gap]).toEqual(["true", "false"]);
    expect(create?.text).toMatch(/⚠ declared \d+ days before it was accepted/);
    expect(free?.text).toMatch(/PayloadSHA-256 (cd){32}/);
    expect(reg?.text).toContain("registered statement, issuer https://conserver.example");
    // A registered statement's RFC 9162 leaf is its payload's hash: that receipt is the statement's to check.
    expect(reg?.text).toMatch(
      /receipt checks out under the keys this service serves \(log entry \d+ \(MMR position \d+\); MMR profile\) \(its RFC 9162 receipt commits to the statement's payload/,
    );
    // The attributes, whole, behind a summary.
    expect(await browser.page.$eval("#trail > li details.attributes", (d) => d.textContent)).toContain(
      "vcon_draft_version01",
    );
    // Each status's meaning is said once, above the trail, not on every card.
    const text = (await browser.page.textContent("#result")) ?? "";
    const level = (await browser.page.textContent("#trail > li .badge:not(.kind)")) ?? "";
    expect(text.split(TRUST_WORDS[level] ?? "?").length - 1).toBe(1);
    expect(await browser.page.$$eval("#trail-key", (e) => e.length)).toBe(1);
    // Record ids are links to the record.
    expect(
      await browser.page.$$eval("#trail > li a.hash", (as) => as.map((a) => a.getAttribute("href"))),
    ).toEqual(
      steps.map((_, i) =>
        expect.stringMatching(i < 2 ? /^#record=assets\/.+\/events\/.+$/ : /^#record=events\/.+$/),
      ),
    );
    const policies = await browser.page.$$eval("#compliance tbody tr", (r) =>
      r.map((x) => [x.querySelector("td")?.textContent, (x as HTMLElement).dataset.compliant]),
    );
    expect(policies).toEqual([["Recorded within ten years", "true"]]);
    await screenshot(browser.page, "console-vcon-trail-desktop");
  });

  it("downloads a record's JSON and its receipt, and the receipt verifies offline", async () => {
    const [jsonFile] = await Promise.all([
      browser.page.waitForEvent("download"),
      browser.page.click("#trail > li:first-child button[data-action=json]"),
    ]);
    const record = JSON.parse(readFileSync((await jsonFile.path()) as string, "utf8")) as Record<
      string,
      unknown
    >;
    expect(record.identity).toMatch(new RegExp(`^${asset}/events/`));
    expect(jsonFile.suggestedFilename()).toBe(`record-${String(record.identity).split("/").at(-1)}.json`);
    // Its tooltip names the command that checks it, as the CLI has it (test/unit/cli/command-lines.test.ts).
    const id = String(record.identity).split("/").at(-1);
    expect(
      await browser.page.getAttribute("#trail > li:first-child button[data-action=receipt]", "title"),
    ).toContain(`archivist verify record-${id}.json --receipt receipt-${id}.cose --keys keys.cbor`);
    const [receiptFile] = await Promise.all([
      browser.page.waitForEvent("download"),
      browser.page.click("#trail > li:first-child button[data-action=receipt]"),
    ]);
    expect(receiptFile.suggestedFilename()).toBe(`receipt-${id}.cose`);
    const keys = keysFromKeySet(
      new Uint8Array(await (await fetch(`${s.url}/.well-known/scitt-keys`)).arrayBuffer()),
    );
    const receipt = new Uint8Array(readFileSync((await receiptFile.path()) as string));
    expect(verifyRecordReceipt(record, receipt, keys)).toMatchObject({ ok: true, profile: "mmr" });
    // A receipt is not any record's: another record fails with it.
    expect(verifyRecordReceipt({ ...record, operation: "Other" }, receipt, keys).ok).toBe(false);
  });

  it("opens a deep link at its record, after sign-in, and a record link in the trail selects it", async () => {
    const href = (await browser.page.getAttribute("#trail > li:nth-child(2) a.hash", "href")) ?? "";
    const identity = href.replace("#record=", "");
    // Another page first: a link to the same page only changes the fragment, and keeps the session.
    await browser.page.goto("about:blank");
    await browser.page.goto(`${s.url}/console${href}`);
    // A new page load: the token went with the old one.
    expect(await browser.page.isVisible("#signin")).toBe(true);
    await signIn();
    await browser.page.waitForSelector("#trail > li.selected");
    expect(await browser.page.getAttribute("#trail > li.selected", "data-identity")).toBe(identity);
    expect(await browser.page.textContent("#trail-heading")).toBe("Call 42 (billing dispute)");
    // The asset's own trail: its creation and both vCon events, as many as the table counts.
    expect(await browser.page.$$eval("#trail > li", (l) => l.length)).toBe(3);
    expect(await browser.page.textContent("#trail-count")).toMatch(/^Trail: 3 record\(s\): 3 asset events;/);
    expect(await browser.page.evaluate(() => document.activeElement?.classList.contains("selected"))).toBe(
      true,
    );
    // The trail's verdict is said once every receipt is checked; a click before then would have
    // its "Showing" line replaced by that verdict.
    await browser.page.waitForSelector("#status[data-code]", { timeout: 20_000 });
    await browser.page.click("#trail > li:first-child a.hash");
    await browser.page.waitForFunction(() =>
      document.querySelector("#trail > li.selected")?.matches(":first-child"),
    );
    expect(await status()).toMatchObject({ ok: "true", text: expect.stringMatching(/^Showing assets\//) });
    await screenshot(browser.page, "console-deep-link-desktop");
    // An asset-free record's link opens it alone.
    await browser.page.goto("about:blank");
    await browser.page.goto(`${s.url}/console#record=${freeEvent}`);
    await signIn();
    await browser.page.waitForSelector("#trail > li.selected");
    expect(await browser.page.textContent("#trail-heading")).toBe(freeEvent);
  });

  it('a "not found" clears the previous trail', async () => {
    await browser.page.fill("#query", `vcon://${vcon}`);
    await browser.page.press("#query", "Enter");
    await trailShows(4);
    await browser.page.fill("#query", `vcon://${crypto.randomUUID()}`);
    await browser.page.press("#query", "Enter");
    await browser.page.waitForSelector("#status[data-ok=false]");
    expect((await status()).text).toMatch(/^no records of vcon:\/\//);
    expect(await browser.page.$("#trail")).toBeNull();
    // Text that names nothing clears it too; a link to what the address names opens it again.
    await browser.page.evaluate((v) => {
      location.hash = `#vcon=${v}`;
    }, vcon);
    await trailShows(4);
    await browser.page.fill("#query", "not an id");
    await browser.page.press("#query", "Enter");
    await browser.page.waitForSelector("#status[data-ok=false]");
    expect(await browser.page.$("#trail")).toBeNull();
    await browser.page.click(`#assets-table a[href="#vcon=${vcon}"]`);
    await trailShows(4);
  });

  it("shows the log live: size, the checkpoint's Ed25519 and ML-DSA-44 lines, the witness and its cosignature", async () => {
    const size = Number(await browser.page.getAttribute("#log-size", "data-size"));
    expect(size).toBeGreaterThanOrEqual(6);
    const sigs = await browser.page.$$eval("#checkpoint-signatures li", (lis) =>
      lis.map((li) => [
        (li as HTMLElement).dataset.role,
        (li as HTMLElement).dataset.algorithm,
        (li as HTMLElement).dataset.verified,
      ]),
    );
    expect(sigs).toEqual([
      ["log", "Ed25519", "true"],
      ["log", "ML-DSA-44", "true"],
      ["witness", "Ed25519", "true"],
    ]);
    expect(await browser.page.textContent("#checkpoint-signatures")).toMatch(
      /Ed25519 · witness console\.test\/witness · verified · cosigned [A-Z][a-z]{2} \d/,
    );
    const witnessRow = (await browser.page.textContent("#witness-list li")) ?? "";
    expect(witnessRow).toMatch(new RegExp(`^${WITNESS} \\(Ed25519\\): last cosigned size \\d+, [A-Z]`));
    await screenshot(browser.page, "console-log-desktop");
    // A new record: the panel shows the larger log without a reload.
    await s.api(`/archivist/v2/${asset}/events`, {
      method: "POST",
      token,
      json: vconEvent(vcon, "vcon_update", today),
    });
    await until(async () => {
      await s.service.workers.flush();
      const note = await (await fetch(`${s.url}/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text();
      return note.split("\n")[1] === String(size + 1) ? true : undefined;
    }, 30_000);
    await browser.page.waitForFunction(
      (n) => Number(document.querySelector("#log-size")?.getAttribute("data-size")) > n,
      size,
      { timeout: 30_000 },
    );
  });

  it("reads at phone width: table as cards, trail and log panel, nothing scrolling sideways", async () => {
    await browser.page.setViewportSize(NARROW);
    await browser.page.evaluate(() => document.querySelector("#assets")?.scrollIntoView());
    expect(await overflowing()).toEqual([]);
    // Each cell says what it is: the headings are not shown on a phone.
    expect(await browser.page.isVisible("#assets-table thead")).toBe(false);
    expect(
      await browser.page.$eval(
        "#assets-table tbody td:nth-child(2)",
        (td) => getComputedStyle(td, "::before").content,
      ),
    ).toBe('"Type: "');
    await screenshot(browser.page, "console-assets-phone");
    await browser.page.click("#assets-table tbody tr:first-child td.name a");
    await trailShows(5);
    expect(await overflowing()).toEqual([]);
    await screenshot(browser.page, "console-vcon-trail-phone");
    await browser.page.evaluate(() => document.querySelector("#log-panel")?.scrollIntoView());
    expect(await overflowing()).toEqual([]);
    await screenshot(browser.page, "console-log-phone");
    await browser.page.setViewportSize(WIDE);
  });

  it("exports the evidence bundle, checked in the browser first, and it verifies offline", async () => {
    await browser.page.fill("#query", vcon);
    await browser.page.press("#query", "Enter");
    await browser.page.waitForFunction(
      (v) => document.querySelector("#trail-heading")?.textContent === `vcon://${v}`,
      vcon,
    );
    expect(new URL(browser.page.url()).hash).toBe(`#vcon=${vcon}`);
    const [download] = await Promise.all([
      browser.page.waitForEvent("download"),
      browser.page.click("#export"),
    ]);
    expect(download.suggestedFilename()).toBe(`evidence-vcon-${vcon}.json`);
    const report = verifyBundle(parseBundle(readFileSync((await download.path()) as string, "utf8")));
    // Checked against the keys it carries only: self-consistent, never "verified" without a trust root.
    expect(report.code).toBe("self-consistent-unpinned");
    expect(report.records.every((r) => r.ok)).toBe(true);
    expect(await browser.page.textContent("#export-status")).toMatch(
      /Checked here before saving: SELF-CONSISTENT, KEYS NOT PINNED: \d+ record/,
    );
    expect(browser.foreign).toEqual([]);
  });

  it("finds statements by subject, at desktop and phone width, each record a link to it", async () => {
    await browser.page.selectOption("#statement-field", "subject");
    await browser.page.fill("#statement-value", `vcon://${vcon}`);
    await browser.page.click("#statements-button");
    expect(await status()).toMatchObject({ ok: "true", text: "5 statement(s) found by subject" });
    const kinds = await browser.page.$$eval("#statements-table tbody tr td:nth-child(2)", (tds) =>
      tds.map((td) => td.textContent),
    );
    expect([...kinds].sort()).toEqual([
      "made from asset-free event",
      "made from event",
      "made from event",
      "made from event",
      "registered",
    ]);
    await screenshot(browser.page, "console-statements-desktop");
    // The registered statement is in the vCon's trail on show: its link selects it there.
    await browser.page.click(`#statements-table a[href="#record=${registered}"]`);
    await browser.page.waitForSelector("#trail > li.selected");
    expect(await browser.page.getAttribute("#trail > li.selected", "data-identity")).toBe(registered);
    expect(await browser.page.textContent("#trail-heading")).toBe(`vcon://${vcon}`);
    await browser.page.setViewportSize(NARROW);
    await browser.page.evaluate(() => document.querySelector("#statements-form")?.scrollIntoView());
    const wide = (await overflowing()).filter((e) => !e.startsWith("TD") && !e.startsWith("TABLE"));
    expect(wide).toEqual([]);
    await screenshot(browser.page, "console-statements-phone");
    await browser.page.setViewportSize(WIDE);
  });

  it("judges every verdict by the trust roots given: VERIFIED when pinned, POLICY FAILED when wrong", async () => {
    const served = keysFromKeySet(
      new Uint8Array(await (await fetch(`${s.url}/.well-known/scitt-keys`)).arrayBuffer()),
    );
    const prints = [...served].map(([kid, k]) => `${kid} ${keyFingerprint(k)}`);
    const logVkey = (
      await (await fetch(`${s.url}/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()
    ).trim();
    await browser.page.fill("#query", `vcon://${vcon}`);
    await browser.page.press("#query", "Enter");
    await trailShows(5);
    // The trail is drawn before its receipts are checked: its verdict comes when the last one is.
    await browser.page.waitForSelector("#status[data-code]", { timeout: 20_000 });
    expect((await status()).text).toMatch(/^SELF-CONSISTENT, KEYS NOT PINNED: 5 record/);
    await browser.page.click("#trust-panel summary");
    await browser.page.fill("#trust-fingerprints", prints.join("\n"));
    await browser.page.fill("#trust-log-key", logVkey);
    await browser.page.fill("#trust-witnesses", witnessVkey);
    await browser.page.click("#trust-apply");
    expect(await browser.page.textContent("#trust-summary")).toBe(
      `Every verdict here is judged by your roots: ${prints.length} service key fingerprint(s), the log key given here, 1 of 1 witness(es).`,
    );
    // The trail on show is judged again: every receipt under a service key pinned here.
    await browser.page.waitForSelector("#status[data-code=verified]", { timeout: 20_000 });
    // A receipt is checked under service keys, never witnesses: the level /verify and the CLI name.
    expect((await status()).text).toBe(
      `VERIFIED (keys pinned, not witnessed): 5 record(s) of vcon://${vcon}, every receipt valid under your trust roots`,
    );
    expect(new Set((await trailSteps()).map((x) => x.code))).toEqual(new Set(["verified"]));
    expect(await browser.page.textContent("#trail-key")).toMatch(/then judged by your trust roots/);
    // The log panel: the checkpoint under the pinned log key, cosigned by the witness given here.
    await browser.page.waitForSelector("#log-panel .verdict-tag[data-code=verified]", { timeout: 30_000 });
    // Cosigned by a quorum of witnesses given here: the one green verdict, named as such.
    expect(
      await browser.page.$eval("#log-panel .verdict-tag", (t) => [t.textContent, getComputedStyle(t).color]),
    ).toEqual(["VERIFIED (witnessed)", "rgb(18, 112, 58)"]);
    // An exported bundle, checked before saving, by the same roots.
    const [download] = await Promise.all([
      browser.page.waitForEvent("download"),
      browser.page.click("#export"),
    ]);
    expect(download.suggestedFilename()).toBe(`evidence-vcon-${vcon}.json`);
    expect(await browser.page.textContent("#export-status")).toMatch(/Checked here before saving: VERIFIED/);
    await screenshot(browser.page, "console-trust-verified-desktop");

    // Roots the evidence does not meet: another service key's fingerprint, another log's key.
    const other = formatVkey(`${WITNESS}-not`, ED25519, ed25519PublicKey(new Uint8Array(32).fill(7)));
    const kid = [...served.keys()][0] as string;
    await browser.page.fill("#trust-fingerprints", `${kid} sha256:${"00".repeat(32)}`);
    await browser.page.fill("#trust-log-key", other);
    await browser.page.fill("#trust-witnesses", "");
    await browser.page.click("#trust-apply");
    await browser.page.waitForSelector("#status[data-code=policy-failed]", { timeout: 20_000 });
    expect((await status()).text).toMatch(
      /^POLICY FAILED: 5 of 5 record\(s\) do not meet your trust roots \(not signed by a service key you pinned/,
    );
    expect(new Set((await trailSteps()).map((x) => x.code))).toEqual(new Set(["policy-failed"]));
    await browser.page.waitForSelector("#log-panel .verdict-tag[data-code=policy-failed]", {
      timeout: 30_000,
    });
    expect(await browser.page.textContent("#log-panel")).toMatch(/not signed by a log key you pinned/);
    // A typo is refused whole, and the roots in use stay.
    await browser.page.fill("#trust-quorum", "3");
    await browser.page.click("#trust-apply");
    await browser.page.waitForSelector("#status[data-ok=false]:not([data-code])");
    expect((await status()).text).toMatch(
      /^Trust roots refused, the ones in use are kept: a quorum counts witnesses/,
    );
    await browser.page.click("#trust-clear");
    await browser.page.waitForSelector("#status[data-code=self-consistent-unpinned]", { timeout: 20_000 });
    expect(await browser.page.textContent("#trust-summary")).toMatch(/^No trust roots given/);
  });

  it("finds a call by the vCon file an auditor holds: the records of its payload hash, marked in its trail", async () => {
    // A version of the vCon recorded as the conserver's links record it: the payload is the
    // file's hash as they compute it (here python-json, vcon-server's Vcon.hash).
    const file = new TextEncoder().encode(
      JSON.stringify({
        vcon: "0.0.1",
        uuid: vcon,
        created_at: `${today}T09:00:00Z`,
        parties: [{ tel: "+15550100" }],
        dialog: [],
      }),
    );
    const payload = hashVcon(parseVcon(file), "python-json");
    const made = await json<{ identity: string }>(
      s.api(`/archivist/v2/${asset}/events`, {
        method: "POST",
        token,
        json: vconEvent(vcon, "vcon_redact", today, payload),
      }),
    );
    await untilSealed(s, token, asset);
    await browser.page.goto("about:blank");
    await browser.page.goto(`${s.url}/console`);
    await signIn();
    await browser.page.setInputFiles("#vcon-file", {
      name: "call-42.vcon.json",
      mimeType: "application/json",
      buffer: Buffer.from(file),
    });
    await browser.page.waitForSelector("#trail > li.matched");
    expect(
      await browser.page.$$eval("#trail > li.matched", (l) =>
        l.map((x) => (x as HTMLElement).dataset.identity),
      ),
    ).toEqual([made.identity]);
    expect(await browser.page.getAttribute("#trail > li.selected", "data-identity")).toBe(made.identity);
    expect(await status()).toMatchObject({
      ok: "true",
      text: `call-42.vcon.json is the version of vcon://${vcon} recorded by 1 record(s) (payload hash as python-json, python-json-normalized), marked in its trail`,
    });
    expect(new URL(browser.page.url()).hash).toBe(`#vcon=${vcon}`);
    await screenshot(browser.page, "console-vcon-file-desktop");
    // A version nobody recorded finds nothing, and says which hashes it tried.
    await browser.page.setInputFiles("#vcon-file", {
      name: "other.vcon.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify({ vcon: "0.0.1", uuid: vcon, parties: [], dialog: [] })),
    });
    await browser.page.waitForSelector("#status[data-ok=false]");
    expect((await status()).text).toMatch(
      /^no record you may read holds this file's payload hash \(SHA-256 as raw, /,
    );
    expect(await browser.page.$("#trail")).toBeNull();
  });

  it("opens the record at a log entry or an MMR position, each named as such, never one for the other", async () => {
    await browser.page.fill("#query", `vcon://${vcon}`);
    await browser.page.press("#query", "Enter");
    await browser.page.waitForSelector("#trail > li");
    // The cards are drawn before their receipts are checked: their numbers come with the checks.
    await browser.page.waitForFunction(() => !document.querySelector("#trail > li[data-receipt=pending]"));
    // A record whose two numbers differ (leaf L sits at MMR position 2L − popcount(L)).
    const card = (await trailSteps())
      .map((x, i) => ({ i, m: /log entry (\d+) \(MMR position (\d+)\);/.exec(x.text) }))
      .find((x) => x.m && x.m[1] !== x.m[2]);
    const [entry, mmr] = [card?.m?.[1], card?.m?.[2]];
    expect(entry).toMatch(/^\d+$/);
    const identity = await browser.page.getAttribute(
      `#trail > li:nth-child(${(card?.i ?? 0) + 1})`,
      "data-identity",
    );
    for (const text of [`log entry ${entry}`, `entry ${entry}`, `mmr ${mmr}`, `MMR position ${mmr}`]) {
      await browser.page.fill("#query", text);
      await browser.page.press("#query", "Enter");
      await browser.page.waitForSelector(`#trail > li.selected[data-identity="${identity}"]`);
      expect(new URL(browser.page.url()).hash, text).toBe(`#record=${identity}`);
    }
    // The MMR position read as a log entry names another record, or none: never this one.
    await browser.page.fill("#query", `log entry ${mmr}`);
    await browser.page.press("#query", "Enter");
    await browser.page.waitForFunction(
      (id) =>
        document.querySelector("#status[data-ok=false]") !== null ||
        (document.querySelector("#trail > li.selected") !== null &&
          document.querySelector("#trail > li.selected")?.getAttribute("data-identity") !== id),
      identity,
    );
    // Read as the page stands: `getAttribute` would wait its 30 s for a selected card that a refusal never shows.
    expect(
      await browser.page.evaluate(
        () => document.querySelector("#trail > li.selected")?.getAttribute("data-identity") ?? null,
      ),
    ).not.toBe(identity);
    // A bare number could be either: the finder asks, and the address no longer names the record
    // it showed before (a reload or a copied link would open a trail no longer on show).
    await browser.page.fill("#query", `mmr ${mmr}`);
    await browser.page.press("#query", "Enter");
    await browser.page.waitForSelector(`#trail > li.selected[data-identity="${identity}"]`);
    expect(new URL(browser.page.url()).hash).toBe(`#record=${identity}`);
    await browser.page.fill("#query", String(mmr));
    await browser.page.press("#query", "Enter");
    await browser.page.waitForSelector("#status[data-ok=false]");
    expect((await status()).text).toBe(
      `Which number is ${mmr}? Enter log entry ${mmr} (as checkpoints and tlog-proofs count) or mmr ${mmr} (the MMR position, as MMR receipts name it).`,
    );
    expect(await browser.page.$("#trail")).toBeNull();
    expect(new URL(browser.page.url()).hash).toBe("");
    // Back goes to the record the address named before.
    await browser.page.goBack();
    await browser.page.waitForSelector(`#trail > li.selected[data-identity="${identity}"]`);
    expect(new URL(browser.page.url()).hash).toBe(`#record=${identity}`);
    // The reader goes back to the find box while the receipts are checked: the trail's verdict,
    // when it comes, leaves the focus there (it took it once, and the next Enter went to a card).
    await browser.page.focus("#query");
    await browser.page.waitForSelector("#status[data-code]");
    expect(await browser.page.evaluate(() => document.activeElement?.id)).toBe("query");
    // Text that names nothing leaves no stale address either.
    await browser.page.fill("#query", "not an id");
    await browser.page.press("#query", "Enter");
    await browser.page.waitForSelector("#status[data-ok=false]");
    expect(new URL(browser.page.url()).hash).toBe("");
    await browser.page.fill("#query", "log entry 999999");
    await browser.page.press("#query", "Enter");
    await browser.page.waitForSelector("#status[data-ok=false]");
    expect((await status()).text).toBe("no log entry 999999 in your tenancy's log");
    await browser.page.fill("#query", "mmr 2");
    await browser.page.press("#query", "Enter");
    await browser.page.waitForSelector("#status[data-ok=false]");
    expect((await status()).text).toBe(
      "no log entry at MMR position 2 in your tenancy's log (an interior node of the MMR, or beyond the log)",
    );
  });

  it("judges every card again when the roots change or are forgotten, however the trail was opened", async () => {
    const served = keysFromKeySet(
      new Uint8Array(await (await fetch(`${s.url}/.well-known/scitt-keys`)).arrayBuffer()),
    );
    const logVkey = (
      await (await fetch(`${s.url}/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()
    ).trim();
    const kid = [...served.keys()][0] as string;
    const other = formatVkey(`${WITNESS}-not`, ED25519, ed25519PublicKey(new Uint8Array(32).fill(7)));
    const roots = {
      pinned: {
        fingerprints: [...served].map(([k, key]) => `${k} ${keyFingerprint(key)}`).join("\n"),
        logKey: logVkey,
        witnesses: witnessVkey,
      },
      wrong: { fingerprints: `${kid} sha256:${"00".repeat(32)}`, logKey: other, witnesses: "" },
    };
    const apply = async (r: { fingerprints: string; logKey: string; witnesses: string }) => {
      if (!(await browser.page.isVisible("#trust-fingerprints")))
        await browser.page.click("#trust-panel summary");
      await browser.page.fill("#trust-fingerprints", r.fingerprints);
      await browser.page.fill("#trust-log-key", r.logKey);
      await browser.page.fill("#trust-witnesses", r.witnesses);
      await browser.page.click("#trust-apply");
    };
    const forget = async () => {
      if (!(await browser.page.isVisible("#trust-clear"))) await browser.page.click("#trust-panel summary");
      await browser.page.click("#trust-clear");
    };
    const cards = () =>
      browser.page.$$eval("#trail > li", (lis) =>
        lis.map((li) => ({
          identity: (li as HTMLElement).dataset.identity ?? "",
          code: (li as HTMLElement).dataset.code ?? "",
          tag: li.querySelector(".verdict-tag")?.getAttribute("data-code") ?? "",
          selected: li.classList.contains("selected"),
        })),
      );
    /** Waits until the same cards are on show, each (card and tag) judged `code`, and (`line`) the status line too. */
    const judged = async (identities: string[], code: string, line = true) => {
      await browser.page
        .waitForFunction(
          ({ ids, c, l }) => {
            const lis = Array.from(document.querySelectorAll<HTMLElement>("#trail > li"));
            return (
              lis.length === ids.length &&
              lis.every(
                (li, i) =>
                  li.dataset.identity === ids[i] &&
                  li.dataset.code === c &&
                  li.querySelector(".verdict-tag")?.getAttribute("data-code") === c,
              ) &&
              (!l || document.querySelector("#status")?.getAttribute("data-code") === c)
            );
          },
          { ids: identities, c: code, l: line },
          { timeout: 30_000 },
        )
        .catch(async (err: Error) => {
          // What is on show instead, so a failure names the stale verdict.
          const shownNow = JSON.stringify({ cards: await cards(), status: await status() });
          throw new Error(`${err.message}\nwanted ${code} on ${identities.join(", ")}; on show: ${shownNow}`);
        });
      const now = await cards();
      expect(now.map((x) => [x.code, x.tag])).toEqual(identities.map(() => [code, code]));
      return now;
    };
    /** Opens a trail one way, then applies the pinned roots, wrong roots and none: every card follows. */
    const rejudged = async (how: string, opened: () => Promise<void>, selected?: string) => {
      await forget();
      await opened();
      await browser.page.waitForSelector("#trail > li");
      const ids = (await cards()).map((x) => x.identity);
      expect(ids.length, how).toBeGreaterThan(0);
      // Opened at a record or by a file, the status line says what is shown, not a verdict.
      await judged(ids, "self-consistent-unpinned", false);
      for (const [roots_, code] of [
        [roots.pinned, "verified"],
        [roots.wrong, "policy-failed"],
        [roots.pinned, "verified"],
      ] as const) {
        await apply(roots_);
        const now = await judged(ids, code);
        // The record the trail was opened at stays the one marked.
        if (selected)
          expect(
            now.filter((x) => x.selected).map((x) => x.identity),
            how,
          ).toEqual([selected]);
      }
      await forget();
      await judged(ids, "self-consistent-unpinned");
      return ids;
    };
    const find = async (text: string) => {
      await browser.page.fill("#query", text);
      await browser.page.press("#query", "Enter");
    };

    await browser.page.setViewportSize(WIDE);
    await browser.page.goto("about:blank");
    await browser.page.goto(`${s.url}/console`);
    await signIn();
    await rejudged("vcon://", () => find(`vcon://${vcon}`));
    await rejudged("a bare uuid", () => find(vcon));
    await rejudged("assets/<uuid>", () => find(asset));
    const assetTrail = (await cards()).map((x) => x.identity);
    const second = assetTrail[1] as string;
    // At a log entry: the record it names is the one marked, and stays marked as it is judged again.
    const entry = await json<{ merklelog_entry?: { commit?: { index?: string } } }>(
      s.api(`/archivist/v2/${second}`, { token }),
    );
    const index = Number(entry.merklelog_entry?.commit?.index);
    expect(Number.isSafeInteger(index)).toBe(true);
    await rejudged("an MMR position", () => find(`mmr ${index}`), second);
    // A record link in the trail on show.
    await rejudged(
      "a record link",
      async () => {
        await find(asset);
        // The trail the search opened, not the one before it (opened at this record, so marked):
        // a click on the old trail's card would be lost when the new one is drawn.
        await browser.page.waitForSelector(`#trail > li[data-identity="${second}"]:not(.selected)`);
        await browser.page.click(`#trail > li[data-identity="${second}"] a.hash`);
        await browser.page.waitForSelector(`#trail > li.selected[data-identity="${second}"]`);
      },
      second,
    );
    // A deep link, on a new page load: signed in after it.
    await rejudged(
      "a deep link",
      async () => {
        await browser.page.goto("about:blank");
        await browser.page.goto(`${s.url}/console#record=${second}`);
        await signIn();
        await browser.page.waitForSelector("#trail > li.selected");
      },
      second,
    );
    // An asset-free record opened alone.
    await rejudged(
      "an asset-free record",
      async () => {
        await browser.page.goto("about:blank");
        await browser.page.goto(`${s.url}/console#record=${freeEvent}`);
        await signIn();
        await browser.page.waitForSelector("#trail > li.selected");
      },
      freeEvent,
    );
    // A link in the asset table.
    await rejudged("the asset table", async () => {
      await browser.page.click(`#assets-table a[href="#vcon=${vcon}"]`);
    });
    // A vCon file found by its payload hash.
    const file = new TextEncoder().encode(
      JSON.stringify({
        vcon: "0.0.1",
        uuid: vcon,
        created_at: `${today}T10:00:00Z`,
        parties: [],
        dialog: [],
      }),
    );
    await s.api(`/archivist/v2/${asset}/events`, {
      method: "POST",
      token,
      json: vconEvent(vcon, "vcon_redact", today, hashVcon(parseVcon(file), "python-json")),
    });
    await untilSealed(s, token, asset);
    await rejudged("a vCon file", async () => {
      await browser.page.setInputFiles("#vcon-file", {
        name: "rejudged.vcon.json",
        mimeType: "application/json",
        buffer: Buffer.from(file),
      });
      await browser.page.waitForSelector("#trail > li.matched");
    });
  }, 300_000);

  it("signs out: the token leaves the tab", async () => {
    await browser.page.click("#signout");
    expect(await browser.page.isVisible("#signin")).toBe(true);
    expect(await browser.page.evaluate(() => Object.keys(sessionStorage))).toEqual([]);
    expect(await browser.page.$("#assets-table")).toBeNull();
  });
});
