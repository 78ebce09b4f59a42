import { beforeAll, describe, expect, it } from "vitest";
import { browserRunnable, chromiumForSuite } from "../helpers/browser.js";
import { startTestService, type TestService } from "../helpers/service.js";

// Issue 31, stored XSS at the service's origin: a blob of HTML, SVG or XHTML, fetched from the
// service in Chromium, runs no script — neither as served (a download), nor if whatever sits in
// between dropped its Content-Disposition (then the sandboxing CSP stops it).
let s: TestService;
let token: string;
const ran: string[] = [];

const BLOBS = {
  html: `<!doctype html><html><head><title>blob</title></head><body><script>document.title="ran";fetch("/xss-ran/html")</script><img src="x" onerror="fetch('/xss-ran/html-img')"></body></html>`,
  svg: `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>document.title="ran";fetch("/xss-ran/svg")</script><title>blob</title></svg>`,
  xhtml: `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>blob</title></head><body><script>document.title="ran";fetch("/xss-ran/xhtml")</script></body></html>`,
};
type Kind = keyof typeof BLOBS;
const downloads: Record<string, Array<[string, boolean]>> = {};

async function upload(body: string): Promise<{ identity: string; hash: { value: string } }> {
  const form = new FormData();
  form.append("file", new Blob([body]), "page");
  const res = await s.api("/archivist/v1/blobs", { method: "POST", token, body: form });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { identity: string; hash: { value: string } };
}

/** Starts the service and stores each blob on a public asset (the suite's `start`). */
async function startAndUpload(): Promise<TestService> {
  s = await startTestService();
  token = await s.token(s.a);
  for (const kind of Object.keys(BLOBS) as Kind[]) {
    const blob = await upload(BLOBS[kind]);
    const uuid = blob.identity.split("/").pop();
    const attachment = {
      arc_attribute_type: "arc_attachment",
      arc_blob_identity: blob.identity,
      arc_blob_hash_alg: "SHA256",
      arc_blob_hash_value: blob.hash.value,
      arc_file_name: `page.${kind}`,
    };
    const asset = await s.api("/archivist/v2/assets", {
      method: "POST",
      token,
      json: { public: true, attributes: { arc_display_type: "call", page: attachment } },
    });
    expect(asset.status).toBe(200);
    const assetUuid = ((await asset.json()) as { identity: string }).identity.split("/").pop();
    // Public (no token) and private (the blob itself, with the owner's token) downloads.
    downloads[kind] = [
      [`${s.url}/archivist/v2/attachments/publicassets/${assetUuid}/${uuid}`, false],
      [`${s.url}/archivist/v1/${blob.identity}`, true],
    ];
  }
  return s;
}
const browser = chromiumForSuite(startAndUpload);
// Every request the blobs' scripts would make, from any page of the browser.
beforeAll(() => {
  browser.context?.on("request", (r) => {
    if (r.url().includes("/xss-ran/")) ran.push(r.url());
  });
});

describe.skipIf(!browserRunnable)("user bytes in Chromium", () => {
  for (const kind of Object.keys(BLOBS) as Kind[]) {
    it(`a ${kind} blob, opened from the service, is a download and runs no script`, async () => {
      for (const [url, withToken] of downloads[kind] ?? []) {
        await browser.page.setExtraHTTPHeaders(withToken ? { authorization: `Bearer ${token}` } : {});
        await browser.page.goto("about:blank");
        const [download] = await Promise.all([
          browser.page.waitForEvent("download"),
          browser.page.goto(url).catch(() => undefined),
        ]);
        expect(await download.failure()).toBeNull();
        expect(browser.page.url()).toBe("about:blank");
        expect(await browser.page.title()).not.toBe("ran");
      }
      expect(ran).toEqual([]);
    });

    it(`a ${kind} blob rendered all the same (its disposition dropped on the way) runs no script`, async () => {
      for (const [url, withToken] of downloads[kind] ?? []) {
        await browser.page.setExtraHTTPHeaders(withToken ? { authorization: `Bearer ${token}` } : {});
        // As a proxy that drops Content-Disposition would pass it: the rest of the answer untouched.
        await browser.page.route(url, async (route) => {
          const res = await route.fetch();
          const headers = { ...res.headers() };
          delete headers["content-disposition"];
          await route.fulfill({ response: res, headers });
        });
        try {
          const res = await browser.page.goto(url, { waitUntil: "load" });
          expect(res?.status()).toBe(200);
          expect(res?.headers()["content-security-policy"]).toMatch(/sandbox/);
          // Inline scripts run while the document is parsed, before its load event: had one run,
          // the title would say so now.
          expect(await browser.page.title()).not.toBe("ran");
        } finally {
          await browser.page.unroute(url);
        }
      }
      expect(ran).toEqual([]);
    });
  }

  it("the same script does run when served without these headers (the test can fail)", async () => {
    await browser.page.setExtraHTTPHeaders({});
    const url = `${s.url}/control-page`;
    await browser.page.route(url, (route) =>
      route.fulfill({ status: 200, contentType: "text/html", body: BLOBS.html }),
    );
    try {
      await browser.page.goto(url, { waitUntil: "load" });
      expect(await browser.page.title()).toBe("ran");
    } finally {
      await browser.page.unroute(url);
    }
  });
});
