import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { browserRunnable, chromiumForSuite } from "../helpers/browser.js";
import { until } from "../helpers/poll.js";
import { startTestService, type TestService } from "../helpers/service.js";

// A long trail in Chromium (issue 61: 1,000 records opened behind a static "Loading…" into one
// page 492,520 px tall): the console shows the records a page at a time with the receipts'
// count as the worker checks them, then the right verdicts; /verify pages a bundle as long.
const N = 260;
const PAGE = 50;

let s: TestService;
let token: string;
const vcon = crypto.randomUUID();
let last = "";

async function startAndSeed(): Promise<TestService> {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  token = await s.token(s.a);
  const asset = (
    (await (
      await s.api("/archivist/v2/assets", {
        method: "POST",
        token,
        json: { attributes: { arc_display_type: "vcon", arc_display_name: "A long call" } },
      })
    ).json()) as { identity: string }
  ).identity;
  for (let i = 0; i < N; i += 100) {
    const requests = Array.from({ length: Math.min(100, N - i) }, (_, k) => ({
      asset_identity: asset,
      event: {
        operation: "Record",
        behaviour: "RecordEvidence",
        event_attributes: { subject: `vcon://${vcon}`, n: String(i + k) },
      },
    }));
    const res = await s.api("/archivist/v2/assets/-/events:batch", {
      method: "POST",
      token,
      json: { requests },
    });
    expect(res.status).toBe(200);
    const made = ((await res.json()) as { responses: Array<{ identity: string }> }).responses;
    last = made.at(-1)?.identity ?? last;
  }
  // The last record's receipts of both profiles are served: every record before it is sealed too.
  for (const profile of ["mmr", "rfc9162"])
    await until(async () => {
      await s.service.workers.flush();
      const r = await s.api(`/archivist/v1/receipts/${last}?profile=${profile}`, { token });
      return r.status === 200 ? true : undefined;
    }, 60_000);
  return s;
}
const browser = chromiumForSuite(startAndSeed, { hookTimeout: 180_000 });

/** Every text the console's status line shows from now on (a trail's progress passes quickly). */
const recordStatus = () =>
  browser.page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { seen: string[] }).seen = seen;
    const status = document.getElementById("status") as HTMLElement;
    new MutationObserver(() => seen.push(status.textContent ?? "")).observe(status, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
const statusSeen = () => browser.page.evaluate(() => (window as unknown as { seen: string[] }).seen);

const cards = () =>
  browser.page.$$eval("#trail > li", (lis) => lis.map((li) => (li as HTMLElement).dataset.code ?? "none"));

describe.skipIf(!browserRunnable)(`a trail of ${N} records in Chromium`, () => {
  it("the console shows the receipts' count as they are checked, a page of records at a time, then the verdicts", async () => {
    await browser.page.setViewportSize({ width: 1400, height: 900 });
    await browser.page.goto(`${s.url}/console`);
    await browser.page.fill("#client-id", s.a.clientId);
    await browser.page.fill("#client-secret", s.a.clientSecret);
    await browser.page.click("#signin-button");
    await browser.page.waitForSelector("#assets-table");
    await recordStatus();
    await browser.page.evaluate((uuid) => {
      location.hash = `#vcon=${uuid}`;
    }, vcon);
    await browser.page.waitForSelector("#status[data-code]", { timeout: 120_000 });
    expect(await browser.page.textContent("#status")).toBe(
      `SELF-CONSISTENT, KEYS NOT PINNED: ${N} record(s) of vcon://${vcon}, every receipt valid under the keys this service serves`,
    );
    // On the way: the count of receipts checked, out of all of them.
    const progress = (await statusSeen()).filter((t) => t.startsWith("Verifying receipts in this browser:"));
    expect(progress.length).toBeGreaterThan(1);
    expect(
      progress.every((t) =>
        new RegExp(`^Verifying receipts in this browser: \\d+ of ${N} checked…$`).test(t),
      ),
    ).toBe(true);
    expect(await browser.page.textContent("#trail-progress")).toBe(
      `Verified in this browser: ${N} of ${N} receipt(s) check out.`,
    );
    expect(await browser.page.textContent("#trail-count")).toBe(
      `Trail: ${N} record(s): ${N} asset events; ${N} receipt(s) verified in this browser`,
    );
    // One page of cards, so the page's height is bounded whatever the trail's length.
    expect(await cards()).toEqual(Array(PAGE).fill("self-consistent-unpinned"));
    expect(await browser.page.textContent("#trail-pager")).toContain(
      `records 1–${PAGE} of ${N} (page 1 of 6)`,
    );
    const oneCard = await browser.page.$eval("#trail > li", (li) => li.getBoundingClientRect().height);
    const height = await browser.page.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeLessThan(oneCard * (PAGE + 20));
    // The last page: the rest of the records, numbered on from the pages before.
    for (let page = 2; page <= 6; page++) {
      await browser.page.click("#trail-pager [data-action=next-page]");
      await browser.page.waitForSelector(`#trail-pager[data-page="${page}"]`);
    }
    expect(await cards()).toEqual(Array(N - 5 * PAGE).fill("self-consistent-unpinned"));
    expect(await browser.page.getAttribute("#trail", "start")).toBe(String(5 * PAGE + 1));
    expect(await browser.page.isDisabled("#trail-pager [data-action=next-page]")).toBe(true);
  });

  it("judges every record again under roots that pin no key the service signs with", async () => {
    await browser.page.click("#trust-panel summary");
    await browser.page.fill("#trust-fingerprints", `nokey sha256:${"0".repeat(64)}`);
    await browser.page.click("#trust-apply");
    await browser.page.waitForSelector("#status[data-code=policy-failed]", { timeout: 120_000 });
    expect(await browser.page.textContent("#status")).toMatch(
      new RegExp(`^POLICY FAILED: ${N} of ${N} record\\(s\\) do not meet your trust roots`),
    );
    expect(await cards()).toEqual(Array(PAGE).fill("policy-failed"));
    await browser.page.click("#trust-clear");
    await browser.page.waitForSelector("#status[data-code=self-consistent-unpinned]", { timeout: 120_000 });
    expect(await cards()).toEqual(Array(PAGE).fill("self-consistent-unpinned"));
  });

  it("/verify checks the trail's bundle and shows its records a page at a time", async () => {
    const bundle = await s.api(`/archivist/v1/evidence/vcons/${vcon}`, { token });
    expect(bundle.status).toBe(200);
    const file = join(mkdtempSync(join(tmpdir(), "long-trail-")), "bundle.json");
    writeFileSync(file, await bundle.text());
    await browser.page.goto(`${s.url}/verify`);
    await browser.page.setInputFiles("#file", file);
    await browser.page.waitForSelector("#verdict[data-code]", { timeout: 120_000 });
    expect(await browser.page.getAttribute("#verdict", "data-code")).toBe("self-consistent-unpinned");
    expect(await browser.page.textContent("#bundle-count")).toBe(
      `Records, in log order: ${N} of ${N} verified`,
    );
    expect(await browser.page.$$eval("#bundle-records > li", (l) => l.length)).toBe(PAGE);
    expect(await browser.page.isVisible("#bundle-records-pager")).toBe(true);
    await browser.page.click("#bundle-records-pager [data-action=next-page]");
    await browser.page.waitForSelector("#bundle-records-pager[data-page='2']");
    expect(
      await browser.page.$$eval("#bundle-records > li", (l) => l.map((li) => (li as HTMLElement).dataset.ok)),
    ).toEqual(Array(PAGE).fill("true"));
  });
});
