import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { keysFromKeySet } from "../../src/verify/receipts/keys.js";
import { keyFingerprint } from "../../src/verify/verdict/fingerprint.js";
import { browserRunnable, chromiumForSuite, screenshot } from "../helpers/browser.js";
import { startTestService, type TestService } from "../helpers/service.js";
import { untilSealed, vconEvent } from "../helpers/vcon-event.js";

// One vocabulary of trust (issue 74): the same evidence under the same roots gets the same word
// and the same colour in the console and on /verify, as docs/verification.md gives them.
const WIDE = { width: 1400, height: 900 };
const GREEN = "rgb(18, 112, 58)";
const AMBER = "rgb(138, 83, 0)";
const RED = "rgb(163, 20, 15)";
const PINNED = "VERIFIED (keys pinned, not witnessed)";

let s: TestService;
let token: string;
let asset: string;
let policy: string;
const vcon = crypto.randomUUID();
const today = new Date().toISOString().slice(0, 10);

const browser = chromiumForSuite(async () => {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  token = await s.token(s.a);
  // A private vCon of two operations, no processing among them (the conserver's default).
  const made = await s.api("/archivist/v2/assets", {
    method: "POST",
    token,
    json: { attributes: { arc_display_type: "vcon", subject: `vcon://${vcon}` } },
  });
  asset = ((await made.json()) as { identity: string }).identity;
  for (const op of ["vcon_create", "vcon_update"])
    await s.api(`/archivist/v2/${asset}/events`, { method: "POST", token, json: vconEvent(vcon, op, today) });
  await untilSealed(s, token, asset);
  const served = keysFromKeySet(
    new Uint8Array(await (await fetch(`${s.url}/.well-known/scitt-keys`)).arrayBuffer()),
  );
  policy = [...served].map(([kid, k]) => `service-key ${kid} ${keyFingerprint(k)}`).join("\n");
  return s;
});

/** An element's word (its text), colour and border colour, as shown. */
const look = (selector: string) =>
  browser.page.$eval(selector, (e) => ({
    text: e.textContent ?? "",
    colour: getComputedStyle(e).color,
    border: getComputedStyle(e).borderTopColor,
  }));

async function consoleWithRoots(): Promise<void> {
  await browser.page.setViewportSize(WIDE);
  await browser.page.goto(`${s.url}/console`);
  await browser.page.fill("#client-id", s.a.clientId);
  await browser.page.fill("#client-secret", s.a.clientSecret);
  await browser.page.click("#signin-button");
  await browser.page.waitForSelector("#assets-table");
  await browser.page.click("#trust-panel summary");
  await browser.page.fill("#trust-policy", policy);
  await browser.page.click("#trust-apply");
  await browser.page.fill("#query", `vcon://${vcon}`);
  await browser.page.press("#query", "Enter");
  await browser.page.waitForSelector("#status[data-code=verified]", { timeout: 30_000 });
}

async function verifyWithRoots(files: Array<{ name: string; bytes: Uint8Array }>): Promise<void> {
  await browser.page.goto(`${s.url}/verify`);
  await browser.page.waitForSelector("#verdict:not([data-ok])");
  await browser.page.click("#trust-roots summary");
  await browser.page.fill("#policy", policy);
  await browser.page.setInputFiles(
    "#file",
    files.map((f) => ({ name: f.name, mimeType: "application/octet-stream", buffer: Buffer.from(f.bytes) })),
  );
  await browser.page.waitForSelector("#verdict[data-code]", { timeout: 30_000 });
}

describe.skipIf(!browserRunnable)("one vocabulary of trust in Chromium", () => {
  it("keys pinned without witnesses: the same word and the same amber in the console and on /verify", async () => {
    await consoleWithRoots();
    const status = await look("#status");
    expect(status.text).toBe(
      `${PINNED}: 2 record(s) of vcon://${vcon}, every receipt valid under your trust roots`,
    );
    expect(status.border).toBe(AMBER);
    const tags = await browser.page.$$eval("#trail > li .verdict-tag", (ts) =>
      ts.map((t) => [t.textContent, getComputedStyle(t).color]),
    );
    expect(tags.length).toBeGreaterThanOrEqual(2);
    for (const tag of tags) expect(tag).toEqual([PINNED, AMBER]);

    // A record and its receipt, as the console's card offers them, dropped on /verify under the same roots.
    const card = "#trail > li:last-child";
    const identity = String(await browser.page.getAttribute(card, "data-identity"));
    const saved = async (action: string) => {
      const [file] = await Promise.all([
        browser.page.waitForEvent("download"),
        browser.page.click(`${card} button[data-action=${action}]`),
      ]);
      return new Uint8Array(readFileSync((await file.path()) as string));
    };
    // One after the other: a download event waited for twice at once would be the first file twice.
    const json = await saved("json");
    const receipt = await saved("receipt");
    // The exported bundle, checked in the console under the roots before it is saved.
    const [download] = await Promise.all([
      browser.page.waitForEvent("download"),
      browser.page.click("#export"),
    ]);
    const bundle = new Uint8Array(readFileSync((await download.path()) as string));
    await browser.page.waitForSelector("#status[data-code=verified]");
    const exported = await look("#status");
    expect(exported.text).toMatch(new RegExp(`^Exported .+: ${PINNED.replace(/[()]/g, "\\$&")}: `));
    expect(exported.border).toBe(AMBER);
    await screenshot(browser.page, "trust-vocabulary-console");

    await verifyWithRoots([
      { name: "receipt.cose", bytes: receipt },
      { name: "record.json", bytes: json },
    ]);
    const receiptVerdict = await look("#verdict");
    expect(receiptVerdict.text.startsWith(`${PINNED}: `), receiptVerdict.text).toBe(true);
    expect(receiptVerdict.text).toContain(identity);
    expect(receiptVerdict.border).toBe(AMBER);
    await verifyWithRoots([{ name: "evidence.json", bytes: bundle }]);
    const bundleVerdict = await look("#verdict");
    expect(bundleVerdict.text.startsWith(`${PINNED}: `), bundleVerdict.text).toBe(true);
    expect(bundleVerdict.border).toBe(AMBER);
    await screenshot(browser.page, "trust-vocabulary-verify");
  });

  it("the consent card names whose roots judged it, and a trail with no processing is not a green all-clear", async () => {
    await consoleWithRoots();
    await browser.page.waitForSelector("#consent-report");
    const card = (await browser.page.textContent("#consent-report")) ?? "";
    expect(card).not.toContain("under the keys this service serves");
    expect(card).toContain("judged by your trust roots (the policy given here)");
    const banner = await look("#consent-banner");
    expect(banner.text).not.toMatch(/^No violation of consent among 0 /);
    expect(banner.text).toMatch(/^No processing event recorded: consent was not judged/);
    expect([GREEN, RED]).not.toContain(banner.colour);
    // Without roots: the card says the served keys judged it, and that they are not pinned.
    await browser.page.click("#trust-clear");
    await browser.page.waitForSelector("#status[data-code=self-consistent-unpinned]", { timeout: 30_000 });
    await browser.page.waitForSelector("#consent-report");
    expect(await browser.page.textContent("#consent-report")).toContain(
      "under the keys this service serves (not pinned)",
    );
    await screenshot(browser.page, "trust-vocabulary-consent");
  });
});
