import type { BrowserContext, Page } from "playwright-core";

/**
 * What a page did, kept in the page itself: address changes, form submissions, keys, focus moves
 * and every change of the status and verdict boxes, each with its time. A wait that times out on a
 * loaded CI machine then says what happened instead of only what did not.
 */
const RECORDER = `(() => {
  const journal = [];
  window.__journal = journal;
  const t0 = performance.now();
  const note = (what) => {
    journal.push(Math.round(performance.now() - t0) + "ms " + what);
    if (journal.length > 300) journal.shift();
  };
  const name = (n) => (n && n.id ? "#" + n.id : n && n.tagName ? n.tagName.toLowerCase() : String(n));
  addEventListener("hashchange", () => note("hashchange " + location.hash));
  addEventListener("popstate", () => note("popstate " + location.hash));
  addEventListener("submit", (e) => note("submit " + name(e.target)), true);
  addEventListener("keydown", (e) => note("keydown " + e.key + " at " + name(e.target)), true);
  addEventListener("focusin", (e) => note("focus " + name(e.target)), true);
  addEventListener("error", (e) => note("error " + (e.message || e.type)));
  addEventListener("unhandledrejection", (e) => note("unhandled " + String(e.reason)));
  const watch = () => {
    for (const id of ["status", "verdict"]) {
      const box = document.getElementById(id);
      if (!box || box.dataset.journal) continue;
      box.dataset.journal = "1";
      new MutationObserver(() =>
        note(id + " ok=" + box.getAttribute("data-ok") + " hidden=" + box.hidden + " " + JSON.stringify((box.textContent || "").slice(0, 120))),
      ).observe(box, { attributes: true, attributeFilter: ["data-ok", "hidden"], childList: true, characterData: true, subtree: true });
    }
  };
  document.addEventListener("DOMContentLoaded", watch);
  addEventListener("load", watch);
})();`;

/** Every page of the context keeps a journal from its first script on. */
export async function recordJournal(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: RECORDER });
}

/** The page's journal, newest last (empty when the page cannot be read). */
async function pageJournal(page: Page): Promise<string[]> {
  try {
    return await page.evaluate(() => (window as unknown as { __journal?: string[] }).__journal ?? []);
  } catch {
    return [];
  }
}

type Wait = (...args: unknown[]) => Promise<unknown>;

/**
 * The page's waits, told on a timeout what the page did last (its journal's tail, its address), so
 * a failure seen only on CI names its cause.
 */
export function waitsTellJournal(page: Page): void {
  for (const key of ["waitForSelector", "waitForFunction"] as const) {
    const wait = (page[key] as Wait).bind(page);
    const told: Wait = async (...args) => {
      try {
        return await wait(...args);
      } catch (err) {
        const tail = (await pageJournal(page)).slice(-40);
        (err as Error).message +=
          `\naddress: ${page.url()}\npage journal (last ${tail.length}):\n  ${tail.join("\n  ")}`;
        throw err;
      }
    };
    Object.assign(page, { [key]: told });
  }
}
