import { describe, expect, it } from "vitest";
import { browserRunnable, chromiumForSuite, DESKTOP, PHONE, screenshot } from "../helpers/browser.js";
import { startTestService, type TestService } from "../helpers/service.js";

let s: TestService;
const browser = chromiumForSuite(async () => {
  s = await startTestService();
  return s;
});

/** Width the page's content needs beyond the viewport (0: nothing scrolls sideways). */
const overflow = () => browser.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/** Words (runs of letters) the layout splits across two lines, each with the element it is in. */
const brokenWords = () =>
  browser.page.evaluate(() => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (const m of (n.textContent ?? "").matchAll(/[A-Za-z]{2,}/g)) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        const lines = new Set(
          Array.from(r.getClientRects())
            .filter((x) => x.width > 0)
            .map((x) => Math.round(x.top)),
        );
        if (lines.size > 1)
          broken.push(`${m[0]} in ${n.parentElement?.tagName}: ${n.textContent?.slice(0, 60)}`);
      }
    }
    return broken;
  });

describe.skipIf(!browserRunnable)("the landing page and the API docs in Chromium", () => {
  it("the landing page links the verify page, the console and the API docs, at desktop and phone width", async () => {
    await browser.page.setViewportSize(DESKTOP);
    await browser.page.goto(`${s.url}/`);
    expect(await browser.page.title()).toMatch(/Archivist/);
    const links = await browser.page.$$eval("nav a", (as) =>
      as.map((a) => [a.textContent, a.getAttribute("href")]),
    );
    expect(links).toEqual([
      ["Verify", "/verify"],
      ["Auditor console", "/console"],
      ["API docs", "/docs"],
    ]);
    expect(await browser.page.textContent("main")).toMatch(/UNEQUIVOCAL.*anchored/s);
    await screenshot(browser.page, "landing-desktop");
    await browser.page.setViewportSize(PHONE);
    await browser.page.reload();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(browser.page, "landing-phone");
    // Every link from the landing page answers.
    await browser.page.setViewportSize(DESKTOP);
    for (const [, href] of links.filter(([, h]) => h !== "/console"))
      expect((await s.api(String(href))).status, String(href)).toBe(200);
  });

  it("the API docs render every route with Swagger UI from this service, without a token or a CDN", async () => {
    await browser.page.goto(`${s.url}/docs`);
    await browser.page.waitForSelector(".swagger-ui .opblock-tag", { timeout: 20_000 });
    const tags = await browser.page.$$eval(".swagger-ui .opblock-tag", (els) =>
      els.map((e) => e.getAttribute("data-tag")),
    );
    expect(tags).toEqual(expect.arrayContaining(["scitt", "merklelogsv1", "site"]));
    // Open one group: its operations are listed with their paths.
    await browser.page.click('.opblock-tag[data-tag="scitt"]');
    await browser.page.waitForSelector(".opblock-summary-path");
    expect(await browser.page.textContent(".swagger-ui")).toContain("/entries");
    await screenshot(browser.page, "docs-desktop");
    expect(browser.foreign).toEqual([]);
  });

  it("the landing page's docs/verification.md link opens that document, readable at phone width", async () => {
    await browser.page.setViewportSize(DESKTOP);
    await browser.page.goto(`${s.url}/`);
    // The trust levels' explanation points to the document that says what each verdict means.
    await browser.page.click('section[aria-labelledby="trust-heading"] a');
    await browser.page.waitForSelector("main h1");
    expect(new URL(browser.page.url()).pathname).not.toBe("/docs");
    expect(await browser.page.textContent("main h1")).toBe(
      "Verification: trust roots, verdicts and exit codes",
    );
    expect(await browser.page.$(".swagger-ui")).toBeNull();
    // The document's own parts, as it has them: its tables, its code, its verdict codes.
    expect(await browser.page.textContent("main")).toContain("self-consistent-unpinned");
    expect(await browser.page.$$eval("main table", (t) => t.length)).toBeGreaterThan(2);
    expect(await browser.page.$$eval("main pre code", (c) => c.length)).toBeGreaterThan(2);
    await screenshot(browser.page, "verification-doc-desktop");
    await browser.page.setViewportSize(PHONE);
    await browser.page.reload();
    expect(await overflow()).toBeLessThanOrEqual(0);
    expect(await brokenWords()).toEqual([]);
    await screenshot(browser.page, "verification-doc-phone");
    expect(browser.foreign).toEqual([]);
  });

  it("the API docs break no word inside itself, at 1400 and 390 px", async () => {
    for (const width of [1400, 390]) {
      await browser.page.setViewportSize({ width, height: 900 });
      await browser.page.goto(`${s.url}/docs`);
      await browser.page.waitForSelector(".swagger-ui .opblock-tag", { timeout: 20_000 });
      // The group whose route names the token, opened: its paths are laid out too.
      await browser.page.click('.opblock-tag[data-tag="appidpv1"]');
      await browser.page.waitForSelector(".opblock-summary-path");
      expect(await brokenWords(), `${width} px`).toEqual([]);
    }
    await screenshot(browser.page, "docs-phone");
    await browser.page.setViewportSize(DESKTOP);
  });
});

describe("the public OpenAPI documents", () => {
  it("serve the whole reference and a public prefix's document without a token", async () => {
    const all = (await (await s.api("/docs/openapi.json")).json()) as { swagger: string; paths: object };
    expect(all.swagger).toBe("2.0");
    expect(Object.keys(all.paths)).toEqual(expect.arrayContaining(["/entries", "/archivist/v2/assets"]));
    const scitt = await s.api("/entries:openapi");
    expect(scitt.status).toBe(200);
    expect(Object.keys(((await scitt.json()) as { paths: object }).paths)).toContain("/entries/{id}");
    // Without a token, a prefix's document lists only the routes that need none.
    const ledger = (await (await s.api("/archivist/v1:openapi")).json()) as { paths: Record<string, object> };
    expect(Object.keys(ledger.paths)).toContain("/archivist/v1/merklelogs/{tenant}/seals");
    expect(Object.keys(ledger.paths)).not.toContain("/archivist/v1/scitt/keys");
  });

  it("ask for a token where no route is public, and show every route with one", async () => {
    expect((await s.api("/archivist/iam/v1/applications:openapi")).status).toBe(401);
    const token = await s.token(s.a);
    const full = await s.api("/archivist/v1:openapi", { token });
    expect(Object.keys(((await full.json()) as { paths: object }).paths)).toContain(
      "/archivist/v1/scitt/keys",
    );
  });
});
