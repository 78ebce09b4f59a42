import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { call } from "../http.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import type { Deployment } from "../service.js";
import { sealedTrail } from "./evidence.js";

/** Debian's Chromium, as the browser tests drive it. */
const CHROMIUM = "/usr/bin/chromium";

const seconds = (t0: number) => (performance.now() - t0) / 1000;

/** The page's height in CSS pixels: what the auditor scrolls through. */
const height = (page: Page) => page.evaluate(() => document.documentElement.scrollHeight);

/**
 * The console opening the vCon's trail: signed in first, then the trail's link followed. Usable:
 * the first records are on screen (the rest may still be verifying); verified: the trail's
 * verdict is said (`#status[data-code]`), every receipt checked.
 */
async function consoleTrail(ctx: ScenarioContext, d: Deployment, page: Page, vcon: string, note: string) {
  await page.goto(`${d.origin}/console`);
  await page.fill("#client-id", d.clientId);
  await page.fill("#client-secret", d.clientSecret);
  await page.click("#signin-button");
  await page.waitForSelector("#workspace:not([hidden])");
  const t0 = performance.now();
  await page.evaluate((uuid) => {
    location.hash = `#vcon=${uuid}`;
  }, vcon);
  await page.waitForSelector("#trail li.record", { timeout: 900_000 });
  const usable = seconds(t0);
  await page.waitForSelector("#status[data-code]", { timeout: 900_000 });
  const verified = seconds(t0);
  const code = await page.getAttribute("#status", "data-code");
  if (code !== "self-consistent-unpinned") throw new Error(`console: trail verdict ${code}`);
  ctx.results.add("pages", "console trail usable (first records on screen)", usable, "s", undefined, note);
  ctx.results.add("pages", "console trail verified (every receipt)", verified, "s", undefined, note);
  ctx.results.add("pages", "console page height", await height(page), "px", undefined, note);
}

/** /verify checking the vCon's evidence bundle, chosen as a file: until its verdict is said. */
async function verifyBundlePage(ctx: ScenarioContext, d: Deployment, page: Page, file: string, note: string) {
  await page.goto(`${d.origin}/verify`);
  const t0 = performance.now();
  await page.setInputFiles("#file", file);
  await page.waitForSelector("#verdict[data-code]", { timeout: 900_000 });
  const verified = seconds(t0);
  const code = await page.getAttribute("#verdict", "data-code");
  if (code !== "self-consistent-unpinned") throw new Error(`/verify: bundle verdict ${code}`);
  ctx.results.add("pages", "/verify bundle verified", verified, "s", undefined, note);
  ctx.results.add("pages", "/verify page height", await height(page), "px", undefined, note);
}

/**
 * `pages`: the auditor's pages on one vCon's trail of 1,000 records (100 quick), in headless
 * Chromium: the console's trail (time until usable, until every receipt is verified, and the
 * page's height) and /verify with the trail's evidence bundle. Issue 61: 19.5 s behind a static
 * "Loading…" and a page 492,520 px tall; /verify 2.7 s and 330,871 px.
 */
export const pages: Scenario = {
  name: "pages",
  async run(ctx) {
    if (!existsSync(CHROMIUM)) {
      ctx.results.na("pages", "console and /verify", `${CHROMIUM} is missing (apt-get install chromium)`);
      return;
    }
    // A development dependency: a packaged bench without it reports n/a instead of failing.
    let chromium: typeof import("playwright-core").chromium;
    try {
      ({ chromium } = await import("playwright-core"));
    } catch {
      ctx.results.na("pages", "console and /verify", "playwright-core is not installed");
      return;
    }
    const d = await ctx.service();
    const token = await d.token();
    const trail = await sealedTrail(ctx, d, token, ctx.opts.quick ? 100 : 1000, [
      "pages",
      "console and /verify",
    ]);
    if (!trail) return;
    const { vcon, note } = trail;
    const dir = mkdtempSync(join(tmpdir(), "bench-pages-"));
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await consoleTrail(ctx, d, page, vcon, note);
      const bundle = await call(d.origin, "GET", `/archivist/v1/evidence/vcons/${vcon}`, { token });
      if (bundle.status !== 200) throw new Error(`evidence route: ${bundle.status}`);
      const file = join(dir, `evidence-vcon-${vcon}.json`);
      writeFileSync(file, bundle.text);
      await verifyBundlePage(ctx, d, page, file, note);
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
