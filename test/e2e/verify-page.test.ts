import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { ed25519PublicKey, formatVkey } from "../../src/core/log/note-sign.js";
import { RouteTable } from "../../src/http/route.js";
import { verifyPageRoutesAt } from "../../src/http/routes/verify-page.js";
import { keysFromKeySet } from "../../src/verify/receipts/keys.js";
import { keyFingerprint } from "../../src/verify/verdict/fingerprint.js";
import { chromiumForSuite, PHONE, browserRunnable as runnable, screenshot } from "../helpers/browser.js";
import { until } from "../helpers/poll.js";
import { evidence, postEvent } from "../helpers/records.js";
import { startTestService, type TestService } from "../helpers/service.js";
import { type Published, publishFixtures } from "../integration/public-verify/publish.js";

let s: TestService;
let p: Published;
const browser = chromiumForSuite(async () => {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  p = await publishFixtures(s);
  return s;
});

/** A fresh page load, so every check starts from "Nothing checked yet". */
async function open(): Promise<void> {
  await browser.page.goto(`${s.url}/verify`);
  await browser.page.waitForSelector("#verdict:not([data-ok])");
}

async function verdict(): Promise<{ ok: string | null; text: string; code: string | null }> {
  const v = await browser.page.waitForSelector("#verdict[data-ok]", { timeout: 20_000 });
  return {
    ok: await v.getAttribute("data-ok"),
    text: (await v.textContent()) ?? "",
    code: await v.getAttribute("data-code"),
  };
}

/** The border of a verdict that judged nothing (cannot-evaluate): the verdict box's own grey. */
const NEUTRAL = "rgb(147, 163, 184)";

/** The verdict's colour as shown: its border. */
const verdictColour = () => browser.page.$eval("#verdict", (v) => getComputedStyle(v).borderTopColor);

const drop = (name: string, bytes: Uint8Array) =>
  browser.page.setInputFiles("#file", {
    name,
    mimeType: "application/octet-stream",
    buffer: Buffer.from(bytes),
  });

describe.skipIf(!runnable)("the /verify page in Chromium", () => {
  it("verifies a published document in the browser and refuses it after a changed byte", async () => {
    await open();
    await drop("policy-v2.txt", p.live.v2);
    // With the keys the page fetched from the service it checks: self-consistent, amber.
    expect(await verdict()).toMatchObject({
      code: "self-consistent-unpinned",
      text: expect.stringMatching(/^SELF-CONSISTENT, KEYS NOT PINNED: published as version 2/),
    });
    expect(await browser.page.textContent("#versions")).toMatch(/version 2: Published \(current version\)/);
    expect(await browser.page.textContent("#versions")).toMatch(
      /receipt checks out under the verdict.s keys/,
    );
    await open();
    const changed = p.live.v2.slice();
    changed[3] = (changed[3] ?? 0) ^ 0x20;
    await drop("policy-v2.txt", changed);
    expect(await verdict()).toMatchObject({
      ok: "false",
      code: "cannot-evaluate",
      text: expect.stringMatching(/^CANNOT EVALUATE: no public document version/),
    });
  });

  it("shows a withdrawn version as withdrawn", async () => {
    await open();
    await drop("retention.txt", p.withdrawn.file);
    expect(await verdict()).toMatchObject({
      ok: "false",
      code: "policy-failed",
      text: expect.stringMatching(/^POLICY FAILED: withdrawn: /),
    });
    const item = await browser.page.waitForSelector('#versions li[data-status="Withdrawn"]');
    expect(await item.textContent()).toMatch(/version 1: Withdrawn/);
    // Dates read as dates, the exact time kept in the datetime attribute.
    const withdrawn = await item.$eval("dd time", (t) => [t.textContent, t.getAttribute("datetime")]);
    expect(withdrawn[0]).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d:\d\d (AM|PM) /);
    expect(withdrawn[1]).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await item.textContent()).toMatch(/CONFIRMED|UNEQUIVOCAL/);
    expect(await item.textContent()).toMatch(/under a seal the service signed|anchored in a block/);
  });

  it("shows a vCon's trail in order, by keyboard, and matches a vCon file to its operation", async () => {
    await open();
    await browser.page.focus("#lookup");
    await browser.page.keyboard.type(`vcon://${p.vcon.uuid}`);
    await browser.page.keyboard.press("Enter");
    expect(await verdict()).toMatchObject({
      code: "self-consistent-unpinned",
      text: expect.stringMatching(/^SELF-CONSISTENT, KEYS NOT PINNED: 2 step/),
    });
    const steps = await browser.page.$$eval("#trail li", (lis) =>
      lis.map((li) => li.getAttribute("data-operation")),
    );
    expect(steps).toEqual(["vcon_created", "vcon_updated"]);
    expect(await browser.page.textContent("#trail")).toMatch(/CONFIRMED|UNEQUIVOCAL/);
    // The status is the service's claim: its badge is never green beside an amber verdict.
    const badges = await browser.page.$$eval("#trail .badge", (bs) =>
      bs.map((b) => getComputedStyle(b).color),
    );
    expect(badges.length).toBe(2);
    for (const colour of badges) expect(colour).not.toBe("rgb(18, 112, 58)");
    await screenshot(browser.page, "verify-vcon-desktop");
    await open();
    await drop("conversation.vcon.json", p.vcon.updated);
    expect(await verdict()).toMatchObject({
      code: "self-consistent-unpinned",
      text: expect.stringMatching(/recorded by vcon_updated/),
    });
    expect(await browser.page.textContent("#trail li:nth-child(2)")).toMatch(
      /This file is the version recorded here/,
    );
    // Nothing but look-ups on this service: the file itself never leaves the browser.
    expect(browser.foreign).toEqual([]);
  });

  it("says what a private vCon needs (a token, or its evidence bundle) instead of only not finding it", async () => {
    // Recorded as the conserver records by default: a private asset, its event naming the vCon.
    const uuid = crypto.randomUUID();
    const token = await s.token(s.a);
    const made = await s.api("/archivist/v2/assets", {
      method: "POST",
      token,
      json: { attributes: { arc_display_type: "vcon", subject: `vcon://${uuid}` } },
    });
    const { identity } = (await made.json()) as { identity: string };
    await postEvent(
      s,
      token,
      identity,
      evidence({ arc_display_type: "vcon_created", subject: `vcon://${uuid}` }),
    );
    await open();
    await browser.page.fill("#lookup", `vcon://${uuid}`);
    await browser.page.click("#lookup-button");
    const v = await verdict();
    expect(v).toMatchObject({
      code: "cannot-evaluate",
      text: expect.stringMatching(
        /^CANNOT EVALUATE: no public records for vcon:\/\/[0-9a-f-]{36}; a vCon recorded privately/,
      ),
    });
    expect(v.text).toContain("check it with a token that may read it (the auditor console at /console");
    expect(v.text).toContain("or with its evidence bundle exported by someone who may (drop it on /verify)");
    expect(v.text).toContain("public_assets: true");
    // Nothing could be judged: that says nothing against the evidence, so it is neither red nor
    // amber but the neutral box every page gives CANNOT EVALUATE (docs/verification.md).
    expect(await verdictColour()).toBe(NEUTRAL);
    expect(await browser.page.$eval("#verdict", (e) => getComputedStyle(e).backgroundColor)).toBe(
      "rgb(255, 255, 255)",
    );
  });

  it("checks an evidence bundle offline: dropped in, verified with no request at all, refused once changed", async () => {
    const res = await s.api(`/archivist/v1/evidence/vcons/${p.vcon.uuid}`, { token: await s.token(s.a) });
    expect(res.status).toBe(200);
    const bundle = new Uint8Array(await res.arrayBuffer());
    await open();
    const requests: string[] = [];
    browser.page.on("request", (r) => requests.push(r.url()));
    await drop("evidence.json", bundle);
    // Against the keys it carries only: self-consistent, amber, never "verified".
    expect(await verdict()).toMatchObject({
      ok: "false",
      code: "self-consistent-unpinned",
      text: expect.stringMatching(/^SELF-CONSISTENT, KEYS NOT PINNED: 2 record\(s\) of vcon:\/\//),
    });
    expect(await verdictColour()).toBe("rgb(138, 83, 0)");
    // The outcome takes the focus.
    expect(await browser.page.evaluate(() => document.activeElement?.id)).toBe("verdict");
    expect(
      await browser.page.$$eval("#bundle-records li", (lis) => lis.map((li) => li.getAttribute("data-ok"))),
    ).toEqual(["true", "true"]);
    expect(await browser.page.textContent("#verdict-keys")).toMatch(/cose-key .*: sha256:[0-9a-f]{64}/);
    expect(await browser.page.textContent("#verdict-not-checked")).toMatch(/completeness/);
    expect(await browser.page.textContent("#verdict-unsigned")).toMatch(/confirmation_status/);
    expect(requests).toEqual([]);
    await screenshot(browser.page, "verify-bundle-desktop");
    // With the service's keys pinned by fingerprint: verified, still amber (no witness).
    const keys = keysFromKeySet(
      Buffer.from(
        (JSON.parse(new TextDecoder().decode(bundle)) as { keys: { cose_key_set: string } }).keys
          .cose_key_set,
        "base64",
      ),
    );
    const genuine = [...keys].map(([kid, k]) => `service-key ${kid} ${keyFingerprint(k)}`).join("\n");
    await open();
    await browser.page.click("#trust-roots summary");
    await browser.page.fill("#policy", genuine);
    await drop("evidence.json", bundle);
    expect(await verdict()).toMatchObject({
      ok: "true",
      code: "verified",
      text: expect.stringMatching(/^VERIFIED \(keys pinned, not witnessed\)/),
    });
    expect(await verdictColour()).toBe("rgb(138, 83, 0)");
    // Pinned to other keys (a forged key set, seen from the other side): refused.
    await open();
    await browser.page.click("#trust-roots summary");
    await browser.page.fill(
      "#policy",
      [...keys.keys()].map((kid) => `service-key ${kid} sha256:${"ab".repeat(32)}`).join("\n"),
    );
    await drop("evidence.json", bundle);
    expect(await verdict()).toMatchObject({ ok: "false", code: "policy-failed" });
    const changed = JSON.parse(new TextDecoder().decode(bundle)) as {
      records: Array<{ record: { event_attributes: Record<string, string> } }>;
    };
    const first = changed.records[0];
    if (first) first.record.event_attributes.vcon_operation = "vcon_deleted";
    await open();
    await drop("evidence.json", new TextEncoder().encode(JSON.stringify(changed)));
    expect(await verdict()).toMatchObject({
      ok: "false",
      code: "tampered",
      text: expect.stringMatching(/^TAMPERED: /),
    });
  });

  it("checks COSE files as the CLI does: statements, a receipt with its record, never a receipt alone", async () => {
    const token = await s.token(s.a);
    const listed = (await (await s.api("/archivist/v2/publicassets?page_size=100")).json()) as {
      assets: Array<{ identity: string; attributes: Record<string, unknown> }>;
    };
    const trail = listed.assets.find((a) => a.attributes.arc_display_name === `vcon://${p.vcon.uuid}`);
    const asset = String(trail?.identity).split("/")[1];
    const events = (await (await s.api(`/archivist/v2/publicassets/${asset}/events`)).json()) as {
      events: Array<{ identity: string }>;
    };
    const event = String(events.events[0]?.identity).split("/")[3];
    const bytesOf = async (path: string, tok?: string) => {
      const res = await s.api(path, tok ? { token: tok } : {});
      expect(res.status, path).toBe(200);
      return new Uint8Array(await res.arrayBuffer());
    };
    const transparent = await bytesOf(
      `/archivist/v2/assets/${asset}/events/${event}/statement?transparent=true`,
      token,
    );
    const statement = await bytesOf(`/archivist/v2/assets/${asset}/events/${event}/statement`, token);
    const receipt = await bytesOf(`/archivist/v1/receipts/assets/${asset}/events/${event}`);
    const record = await bytesOf(`/archivist/v2/publicassets/${asset}/events/${event}`);
    const many = (files: Array<[string, Uint8Array]>) =>
      browser.page.setInputFiles(
        "#file",
        files.map(([name, bytes]) => ({
          name,
          mimeType: "application/octet-stream",
          buffer: Buffer.from(bytes),
        })),
      );

    // A transparent statement: the issuer's signature and its receipt, under the keys this service serves.
    await open();
    await drop("transparent.cose", transparent);
    expect(await verdict()).toMatchObject({
      ok: "false",
      code: "self-consistent-unpinned",
      text: expect.stringMatching(
        /^SELF-CONSISTENT, KEYS NOT PINNED: statement by .+, 1 receipt\(s\) checked/,
      ),
    });
    expect(await verdictColour()).toBe("rgb(138, 83, 0)");
    expect(await browser.page.getAttribute("#cose-file", "data-kind")).toBe("statement");
    expect(await browser.page.evaluate(() => document.activeElement?.id)).toBe("verdict");
    await screenshot(browser.page, "verify-statement-desktop");

    // The plain statement: the issuer's signature alone (a record's receipts ride in the transparent form).
    await open();
    await drop("statement.cose", statement);
    expect(await verdict()).toMatchObject({
      code: "self-consistent-unpinned",
      text: expect.stringMatching(/statement by .+, 0 receipt\(s\) checked/),
    });

    // A receipt alone proves nothing: its signature covers a root only the record gives.
    await open();
    await drop("receipt.cose", receipt);
    expect(await verdict()).toMatchObject({
      code: "cannot-evaluate",
      text: expect.stringMatching(/a receipt alone proves nothing/),
    });
    expect(await browser.page.getAttribute("#cose-file", "data-kind")).toBe("receipt");

    // With the record it proves: the record's leaf, recomputed here, leads to the signed root.
    await open();
    await many([
      ["receipt.cose", receipt],
      ["record.json", record],
    ]);
    expect(await verdict()).toMatchObject({
      code: "self-consistent-unpinned",
      text: expect.stringMatching(/is log entry \d+ \(MMR position \d+\) of tenant\//),
    });
    expect(await browser.page.textContent("#verdict-details")).toMatch(
      /unpinned: checked only under keys the service/,
    );

    // The service's keys pinned by fingerprint: verified, amber (no witness), the level in words.
    const keys = keysFromKeySet(await bytesOf("/.well-known/scitt-keys"));
    await open();
    await browser.page.click("#trust-roots summary");
    await browser.page.fill(
      "#policy",
      [...keys].map(([kid, k]) => `service-key ${kid} ${keyFingerprint(k)}`).join("\n"),
    );
    await many([
      ["receipt.cose", receipt],
      ["record.json", record],
    ]);
    expect(await verdict()).toMatchObject({ ok: "true", code: "verified" });
    expect(await verdictColour()).toBe("rgb(138, 83, 0)");
    expect(await browser.page.textContent("#verdict-details")).toMatch(
      /pinned: checked under keys you gave, with no witness/,
    );

    // A changed record: tampered, red, never green.
    const changed = JSON.parse(new TextDecoder().decode(record)) as {
      event_attributes: Record<string, string>;
    };
    changed.event_attributes.vcon_operation = "vcon_deleted";
    await open();
    await many([
      ["receipt.cose", receipt],
      ["record.json", new TextEncoder().encode(JSON.stringify(changed))],
    ]);
    expect(await verdict()).toMatchObject({ ok: "false", code: "tampered" });
    expect(await verdictColour()).toBe("rgb(163, 20, 15)");
  });

  it("fits a phone's width: hashes wrap, nothing scrolls sideways, the trust levels are explained", async () => {
    await browser.page.setViewportSize(PHONE);
    await open();
    await drop("policy-v2.txt", p.live.v2);
    expect(await verdict()).toMatchObject({
      code: "self-consistent-unpinned",
      text: expect.stringMatching(/^SELF-CONSISTENT, KEYS NOT PINNED: published as version 2, but only/),
    });
    expect(
      await browser.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
    await browser.page.click("details.explain summary");
    expect(await browser.page.textContent("#trust-levels")).toMatch(
      /UNEQUIVOCAL.*anchored in a block of the service's own archivist chain.*Only a checkpoint cosigned by witnesses you trust rules out a split view/s,
    );
    await screenshot(browser.page, "verify-document-phone");
    await browser.page.setViewportSize({ width: 1280, height: 900 });
  });

  it("verifies a tenancy's log: its checkpoint against the log key and its root from the tiles", async () => {
    const token = await s.token(s.a);
    const assets = (await (await s.api("/archivist/v2/assets?page_size=1", { token })).json()) as {
      assets: Array<{ tenant_identity: string }>;
    };
    const tenant = String(assets.assets[0]?.tenant_identity).replace("tenant/", "");
    await open();
    await browser.page.fill("#log-tenant", tenant);
    await browser.page.click("#log-button");
    expect(await verdict()).toMatchObject({
      code: "self-consistent-unpinned",
      text: expect.stringMatching(
        /^SELF-CONSISTENT, KEYS NOT PINNED: .*\/merklelogs\/.*\/tlog at \d+ entries, signed by the log's key, root recomputed/,
      ),
    });
    await open();
    // A witness the log never submitted to: its quorum of one cannot be met.
    await browser.page.fill("#log-tenant", tenant);
    await browser.page.fill(
      "#log-witnesses",
      formatVkey("witness.example/w", 0x04, ed25519PublicKey(new Uint8Array(32).fill(3))),
    );
    await browser.page.click("#log-button");
    expect(await verdict()).toMatchObject({
      ok: "false",
      code: "policy-failed",
      text: expect.stringMatching(/^POLICY FAILED: .*witness quorum/),
    });
  });

  it("checks a tlog-proof against the pasted policy: its witnesses and quorum are enforced (issue 55)", async () => {
    const token = await s.token(s.a);
    const events = (await (await s.api(`/archivist/v2/${p.live.asset}/events`, { token })).json()) as {
      events: Array<{ identity: string; tenant_identity: string }>;
    };
    const first = events.events[0] as { identity: string; tenant_identity: string };
    const proof = await until(async () => {
      const r = await s.api(`/archivist/v1/tlog-proofs/${first.identity}`);
      return r.status === 200 ? new Uint8Array(await r.arrayBuffer()) : undefined;
    });
    const tenant = first.tenant_identity.replace("tenant/", "");
    const logKey = (await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()).trim();
    const withPolicy = async (policy: string) => {
      await open();
      if (policy) {
        await browser.page.click("#trust-roots summary");
        await browser.page.fill("#policy", policy);
      }
      await drop("record.tlog-proof", proof);
      return verdict();
    };
    expect(await withPolicy("")).toMatchObject({ code: "self-consistent-unpinned" });
    expect(await withPolicy(`log ${logKey}`)).toMatchObject({
      code: "verified",
      text: expect.stringMatching(/^VERIFIED \(keys pinned, not witnessed\): .* \(tlog proof\)/),
    });
    const witness = formatVkey("witness.example/w", 0x04, ed25519PublicKey(new Uint8Array(32).fill(3)));
    expect(await withPolicy(`log ${logKey}\nwitness w1 ${witness}\nquorum w1`)).toMatchObject({
      ok: "false",
      code: "policy-failed",
      text: expect.stringMatching(/^POLICY FAILED: .*witness quorum/),
    });
    expect(await withPolicy(`log ${logKey}\nmin-trust witnessed`)).toMatchObject({ code: "policy-failed" });
  });

  it("serves the page and its bundle without a token, with a same-origin CSP", async () => {
    const res = await s.api("/verify");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toMatch(/connect-src 'self'/);
    expect((await s.api("/verify/verify.js")).headers.get("content-type")).toMatch(/javascript/);
  });
});

describe("GET /verify before the page is built", () => {
  it("answers 503 with a JSON error that says how to build it", async () => {
    const server = Fastify();
    // The route's own handler, run the way the app runs public routes (no principal).
    const table = new RouteTable(server, async (spec, req, res) => {
      await spec.handler({ req, res, params: {}, pairs: [], body: undefined, query: {} } as never);
    });
    verifyPageRoutesAt(mkdtempSync(join(tmpdir(), "no-web-")))(table, {} as never);
    const address = await server.listen({ port: 0, host: "127.0.0.1" });
    try {
      const res = await fetch(`${address}/verify`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ message: expect.stringMatching(/not built.*build-web/) });
    } finally {
      await server.close();
    }
  });
});
