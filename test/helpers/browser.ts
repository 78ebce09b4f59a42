import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { recordJournal, waitsTellJournal } from "./page-journal.js";
import type { TestService } from "./service.js";

/** Debian's Chromium (apt-get install chromium; .ci/run installs it). */
const CHROMIUM = "/usr/bin/chromium";
const root = join(import.meta.dirname, "..", "..");
/** Where the browser tests keep their screenshots (ignored by git; CI keeps it as an artifact). */
const SCREENSHOTS = join(root, "test-artifacts", "screenshots");

// In CI a missing browser is a failure (launchBrowser throws); locally the suites are skipped.
export const browserRunnable = existsSync(CHROMIUM) || process.env.CI === "true";

/** True when a page bundle in dist/web is missing or older than the sources it is built from. */
function pagesAreStale(): boolean {
  const built = ["verify.js", "console.js", "docs.js", "index.html", "site.css"].map((f) =>
    join(root, "dist", "web", f),
  );
  if (!built.every(existsSync)) return true;
  const oldest = Math.min(...built.map((f) => statSync(f).mtimeMs));
  const newer = (dir: string): boolean =>
    readdirSync(dir, { withFileTypes: true }).some((e) =>
      e.isDirectory() ? newer(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs > oldest,
    );
  // The pages' shared head and header are written into them from src/http/site-chrome.ts.
  const chrome = statSync(join(root, "src", "http", "site-chrome.ts")).mtimeMs > oldest;
  return chrome || newer(join(root, "src", "web")) || newer(join(root, "src", "core"));
}

/** Builds dist/web when its sources changed since the last build. */
export function ensurePagesBuilt(): void {
  if (pagesAreStale())
    execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs")], { cwd: root, stdio: "inherit" });
}

/**
 * A headless Chromium with a throw-away profile; `close` removes the profile too. `foreign`
 * collects every request the page makes outside `origin` (the pages must make none).
 */
export async function launchBrowser(origin: string): Promise<{
  context: BrowserContext;
  page: Page;
  foreign: string[];
  close(): Promise<void>;
}> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const profile = mkdtempSync(join(tmpdir(), "archivist-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  await recordJournal(context);
  const page = context.pages()[0] ?? (await context.newPage());
  waitsTellJournal(page);
  const foreign: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(origin)) foreign.push(r.url());
  });
  return {
    context,
    page,
    foreign,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A launched browser: its context, its first page, the foreign requests it made, `close`. */
export type Chromium = Awaited<ReturnType<typeof launchBrowser>>;

/**
 * A suite's Chromium at its service. Before the tests: the pages are built, `start` starts the
 * service (and seeds it), and the browser is opened at the service's origin. After them: the
 * browser closes first (its connections would hold the service open), then `stop` stops what else
 * the suite started, then the service stops. When `runnable` is false nothing starts (the suite is
 * skipped). The tests read the browser from the object returned, filled in by then.
 */
export function chromiumForSuite(
  start: () => Promise<TestService>,
  options: { runnable?: boolean; stop?: () => Promise<void>; hookTimeout?: number } = {},
): Readonly<Chromium> {
  const { runnable = browserRunnable, stop, hookTimeout = 90_000 } = options;
  const browser = {} as Chromium;
  let service: TestService | undefined;
  beforeAll(async () => {
    if (!runnable) return;
    ensurePagesBuilt();
    service = await start();
    Object.assign(browser, await launchBrowser(service.url));
  }, hookTimeout);
  afterAll(async () => {
    await browser.close?.();
    await stop?.();
    await service?.stop();
  });
  return browser;
}

/** Saves a full-page screenshot as test-artifacts/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Phone and desktop viewports the pages are checked at. */
export const PHONE = { width: 375, height: 740 };
export const DESKTOP = { width: 1280, height: 900 };
