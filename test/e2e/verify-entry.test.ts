import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, TokenSource } from "../../src/client/index.js";
import { launchBrowser, browserRunnable as runnable } from "../helpers/browser.js";
import { until } from "../helpers/poll.js";
import { startTestService, type TestService } from "../helpers/service.js";

// The third party's room as a third party gets it: the BUILT entry (dist/src/verify/index.js,
// what package.json `exports` names for vcon-archivist/verify) bundled for the browser by a
// bundler with no stand-in for node:crypto or Buffer, loaded into Chromium, and made to verify
// a receipt the running service signed; the same built entry in Node.
type VerifyEntry = typeof import("../../src/verify/index.js");

const root = join(import.meta.dirname, "..", "..");
const entry = join(root, "dist", "src", "verify", "index.js");

interface Evidence {
  record: Record<string, unknown>;
  receipts: { mmr: number[]; rfc9162: number[] };
  keySet: number[];
}

let s: TestService;
let evidence: Evidence;
let bundle: string;

beforeAll(async () => {
  if (!runnable) return;
  execFileSync(process.execPath, ["scripts/ensure-built.mjs"], { cwd: root, stdio: "inherit" });
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "iife",
    globalName: "ArchivistVerify",
    platform: "browser",
    target: "es2022",
    logLevel: "silent",
  });
  bundle = out.outputFiles[0]!.text;
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  const client = new ApiClient({
    url: s.url,
    tokens: new TokenSource({ url: s.url, clientId: s.a.clientId, clientSecret: s.a.clientSecret }),
  });
  const asset = await client.createAsset({
    behaviours: ["RecordEvidence"],
    attributes: { arc_display_type: "browser-check", arc_display_name: "verified in a browser" },
  });
  const event = await client.createAssetEvent(asset.identity, {
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: { step: "one" },
  });
  const settled = <T>(probe: () => Promise<T | undefined>) =>
    until(async () => {
      await s.service.workers.flush();
      return probe();
    }, 30_000);
  const mmr = await settled(() => client.receipt(event.identity, "mmr"));
  const rfc9162 = await settled(() => client.receipt(event.identity, "rfc9162"));
  evidence = {
    record: (await client.getAssetEvent(event.identity)) as unknown as Record<string, unknown>,
    receipts: { mmr: [...mmr], rfc9162: [...rfc9162] },
    keySet: [...(await client.keySet())],
  };
}, 180_000);

afterAll(() => s?.stop());

/**
 * What the entry answers for the evidence, untouched and with one attribute changed. Run in Node and,
 * as its source text, in the page: it uses nothing but its arguments and the built-ins.
 */
function check(verify: VerifyEntry, e: Evidence) {
  const keys = verify.keysFromKeySet(Uint8Array.from(e.keySet));
  const tampered = { ...e.record, event_attributes: { step: "two" } };
  return (["mmr", "rfc9162"] as const).map((profile) => {
    const receipt = Uint8Array.from(e.receipts[profile]);
    const good = verify.verifyRecordReceipt(e.record, receipt, keys);
    return {
      profile,
      ok: good.ok,
      verifiedProfile: good.ok ? good.profile : good.reason,
      tampered: verify.verifyRecordReceipt(tampered, receipt, keys).ok,
      noKeys: verify.verifyRecordReceipt(e.record, receipt, new Map()).ok,
    };
  });
}

const expected = [
  { profile: "mmr", ok: true, verifiedProfile: "mmr", tampered: false, noKeys: false },
  { profile: "rfc9162", ok: true, verifiedProfile: "rfc9162", tampered: false, noKeys: false },
];

describe.skipIf(!runnable)("the built vcon-archivist/verify entry", () => {
  it("bundles for the browser with nothing standing in for Node", () => {
    expect(bundle.length).toBeGreaterThan(10_000);
    expect(bundle).not.toMatch(/\bBuffer\b|require\("node:|from "node:/);
  });

  it("verifies a receipt the service signed, in Chromium, and refuses a changed record", async () => {
    const browser = await launchBrowser("about:");
    try {
      await browser.page.goto("about:blank");
      await browser.page.addScriptTag({ content: bundle });
      // `check` runs in the page as its source text (only data crosses), on the bundle's global.
      const results = await browser.page.evaluate(
        `(${check.toString()})(globalThis.ArchivistVerify, ${JSON.stringify(evidence)})`,
      );
      expect(results).toEqual(expected);
      expect(browser.foreign).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("verifies the same receipts in Node, loaded from dist", async () => {
    const verify = (await import(pathToFileURL(entry).href)) as VerifyEntry;
    expect(check(verify, evidence)).toEqual(expected);
  });
});
