import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseBundle, verifyBundle } from "../../src/core/bundle/index.js";
import {
  browserRunnable,
  DESKTOP,
  ensurePagesBuilt,
  launchBrowser,
  PHONE,
  screenshot,
} from "../helpers/browser.js";
import { startTestService, type TestService } from "../helpers/service.js";
import { untilSealed, vconEvent } from "../helpers/vcon-event.js";

let s: TestService;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let asset: string;
const vcon = crypto.randomUUID();

beforeAll(async () => {
  if (!browserRunnable) return;
  ensurePagesBuilt();
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  const token = await s.token(s.a);
  asset = (
    (await (
      await s.api("/archivist/v2/assets", {
        method: "POST",
        token,
        json: { attributes: { arc_display_type: "vcon", arc_display_name: "Call 42 (billing dispute)" } },
      })
    ).json()) as { identity: string }
  ).identity;
  for (const [i, op] of ["vcon_create", "vcon_update"].entries())
    await s.api(`/archivist/v2/${asset}/events`, {
      method: "POST",
      token,
      json: vconEvent(vcon, op, `2025-03-0${i + 1}`),
    });
  for (const [name, type, seconds] of [
    ["Recorded within ten years", "vcon_create", 315_360_000],
    ["Consent captured today", "consent", 86_400],
  ] as const)
    await s.api("/archivist/v1/compliance_policies", {
      method: "POST",
      token,
      json: {
        compliance_type: "COMPLIANCE_SINCE",
        display_name: name,
        event_display_type: type,
        time_period_seconds: seconds,
      },
    });
  await untilSealed(s, token, asset);
  browser = await launchBrowser(s.url);
  page = browser.page;
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

const status = async () => {
  const v = await page.waitForSelector("#status[data-ok]", { timeout: 20_000 });
  return { ok: await v.getAttribute("data-ok"), text: (await v.textContent()) ?? "" };
};

describe.skipIf(!browserRunnable)("the auditors' console in Chromium", () => {
  it("refuses wrong credentials and names why", async () => {
    await page.setViewportSize(DESKTOP);
    await page.goto(`${s.url}/console`);
    await page.fill("#client-id", s.a.clientId);
    await page.fill("#client-secret", "not-the-secret");
    await page.click("#signin-button");
    expect(await status()).toMatchObject({ ok: "false", text: expect.stringMatching(/^sign-in refused/) });
    expect(await page.isHidden("#workspace")).toBe(true);
    await screenshot(page, "console-signin-refused");
  });

  it("signs in with client credentials, keeping the token in the page's memory only", async () => {
    await page.fill("#client-secret", s.a.clientSecret);
    await page.click("#signin-button");
    expect(await status()).toMatchObject({ ok: "true", text: `Signed in as ${s.a.clientId}.` });
    const stores = await page.evaluate(() => ({
      session: Object.keys(sessionStorage),
      local: Object.keys(localStorage),
      cookies: document.cookie,
    }));
    // Out of reach of any other same-origin document: no storage, no cookie holds it.
    expect(stores).toEqual({ session: [], local: [], cookies: "" });
    expect(await page.textContent("#recent-list")).toContain("Call 42 (billing dispute)");
  });

  it("finds a vCon, shows its trail with each receipt verified and its compliance per policy", async () => {
    await page.fill("#query", `vcon://${vcon}`);
    await page.press("#query", "Enter");
    expect(await status()).toMatchObject({
      ok: "true",
      text: `VERIFIED: 2 record(s) of vcon://${vcon}, every receipt valid`,
    });
    const steps = await page.$$eval("#trail > li", (lis) =>
      lis.map((li) => [li.querySelector("h3")?.textContent, li.dataset.receipt]),
    );
    expect(steps).toEqual([
      ["vcon_create", "true"],
      ["vcon_update", "true"],
    ]);
    const trail = (await page.textContent("#trail")) ?? "";
    expect(trail).toMatch(/Mar 1, 2025/);
    expect(trail).toMatch(/receipt verified \(log entry \d+[;)]/);
    expect(trail).toMatch(/under a seal the service signed|anchored in a block/);
    const policies = await page.$$eval("#compliance tbody tr", (rows) =>
      rows.map((r) => [r.querySelector("td")?.textContent, (r as HTMLElement).dataset.compliant]),
    );
    expect(policies).toEqual(
      expect.arrayContaining([
        ["Recorded within ten years", "true"],
        ["Consent captured today", "false"],
      ]),
    );
    await screenshot(page, "console-trail-desktop");
  });

  it("finds the asset by clicking it, at phone width, without sideways scrolling", async () => {
    await page.setViewportSize(PHONE);
    await page.click(`#recent-list button:has-text("${asset}")`);
    await page.waitForFunction(
      () => document.querySelector("#trail-heading")?.textContent === "Call 42 (billing dispute)",
    );
    expect(await status()).toMatchObject({ ok: "true" });
    // The asset's own trail: its creation and both vCon events.
    expect(await page.$$eval("#trail > li", (lis) => lis.length)).toBe(3);
    // Elements reaching past the screen's right edge (none: nothing scrolls sideways).
    const wide = await page.evaluate(() =>
      Array.from(document.querySelectorAll("main *"))
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
        .map((e) => `${e.tagName}.${e.className}: ${(e.textContent ?? "").slice(0, 40)}`),
    );
    expect(wide).toEqual([]);
    await screenshot(page, "console-asset-phone");
    await page.setViewportSize(DESKTOP);
  });

  it("exports the evidence bundle, checked in the browser first, and it verifies offline", async () => {
    await page.fill("#query", vcon);
    await page.press("#query", "Enter");
    await page.waitForFunction(
      (v) => document.querySelector("#trail-heading")?.textContent === `vcon://${v}`,
      vcon,
    );
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
    expect(download.suggestedFilename()).toBe(`evidence-vcon-${vcon}.json`);
    const report = verifyBundle(parseBundle(readFileSync((await download.path()) as string, "utf8")));
    // Checked against the keys it carries only: self-consistent, never "verified" without a trust root.
    expect(report).toMatchObject({ code: "self-consistent-unpinned", records: [{ ok: true }, { ok: true }] });
    expect(await page.textContent("#export-status")).toMatch(
      /Checked here before saving: SELF-CONSISTENT, KEYS NOT PINNED: 2 record/,
    );
    await screenshot(page, "console-exported");
    expect(browser.foreign).toEqual([]);
  });

  it("shows what each record says: operation, payload hash and algorithm, subject, the accepted principal", async () => {
    await page.fill("#query", `vcon://${vcon}`);
    await page.press("#query", "Enter");
    await page.waitForSelector("#trail > li");
    const first = (await page.textContent("#trail > li")) ?? "";
    expect(first).toMatch(/OperationRecord/);
    expect(first).toMatch(/PayloadSHA-256 [0-9a-f]{64}/);
    expect(first).toContain(`Subjectvcon://${vcon}`);
    expect(first).not.toContain("(not declared)");
  });

  it('a "not found" clears the previous trail', async () => {
    await page.fill("#query", `vcon://${crypto.randomUUID()}`);
    await page.press("#query", "Enter");
    expect(await status()).toMatchObject({ ok: "false" });
    expect(await page.$("#trail")).toBeNull();
  });

  it("finds statements by subject and by payload hash, at desktop and phone width", async () => {
    await page.selectOption("#statement-field", "subject");
    await page.fill("#statement-value", `vcon://${vcon}`);
    await page.click("#statements-button");
    expect(await status()).toMatchObject({ ok: "true", text: "2 statement(s) found by subject" });
    const rows = await page.$$eval("#statements-table tbody tr", (trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll("td")).map((td) => td.textContent)),
    );
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r[0] === `vcon://${vcon}` && r[1] === "made from event")).toBe(true);
    await screenshot(page, "console-statements-desktop");
    // The hash column shows a digest's ends; the whole is its title.
    const hash = await page.$eval(
      "#statements-table tbody td:nth-child(4)",
      (td) => (td as HTMLElement).title,
    );
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    await page.selectOption("#statement-field", "payload_hash");
    await page.fill("#statement-value", hash);
    await page.click("#statements-button");
    // Both events of the fixture vCon carry the same payload hash.
    expect(await status()).toMatchObject({ ok: "true", text: "2 statement(s) found by payload hash" });
    // A found record opens its asset's trail.
    await page.click("#statements-table tbody tr:first-child button");
    await page.waitForFunction(
      () => document.querySelector("#trail-heading")?.textContent === "Call 42 (billing dispute)",
    );
    await page.setViewportSize(PHONE);
    await page.click("#statements-button");
    await page.waitForSelector("#statements-table");
    const wide = await page.evaluate(() =>
      Array.from(document.querySelectorAll("main *"))
        .filter(
          (e) =>
            !e.closest("#statements-result") && e.getBoundingClientRect().right > window.innerWidth + 0.5,
        )
        .map((e) => `${e.tagName}.${e.className}`),
    );
    expect(wide).toEqual([]);
    await page.evaluate(() => document.querySelector("#statements-form")?.scrollIntoView());
    await screenshot(page, "console-statements-phone");
    await page.setViewportSize(DESKTOP);
  });

  it("signs out: the token leaves the tab", async () => {
    await page.click("#signout");
    expect(await page.isVisible("#signin")).toBe(true);
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual([]);
  });
});
