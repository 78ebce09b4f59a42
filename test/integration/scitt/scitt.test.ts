import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { verifyCommand } from "../../../src/cli/verify.js";
import { signSign1 } from "../../../src/core/log/sign1.js";
import { nodePublicKey, nodeSigner } from "../../../src/core/node/crypto.js";
import { attachReceipts, eventToStatement } from "../../../src/core/scitt/index.js";
import { decodeCbor } from "../../../src/formats/cbor/index.js";
import { decodeSign1, HEADER } from "../../../src/formats/cose/index.js";
import type { ApiRecord } from "../../../src/formats/record/api-record.js";
import { verifyStatement } from "../../../src/verify/index.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { until } from "../../helpers/poll.js";
import { createAsset, evidence, postEvent } from "../../helpers/records.js";
import { trustVectorKey } from "../../helpers/scitt-requests.js";
import { serviceForSuite } from "../../helpers/service.js";
import { newAsset } from "../../helpers/vcon-event.js";
import { deterministicSigner, vectorPublicKey } from "../../helpers/vector-key.js";

const suite = serviceForSuite();

const uuid = "0190b6a1-0000-7000-8000-000000000001";
const template = {
  arc_display_type: "vcon_created",
  payload: "54b7280d9d6293d307589277a336a6563210e422fc7c8cc9eb121f57c76d545c",
  payload_hash_alg: "SHA-256",
  payload_preimage_content_type: "application/vcon+json",
  subject: `vcon://${uuid}`,
  timestamp_declared: "2025-01-01T00:00:00Z",
  vcon_operation: "vcon_created",
  vcon_draft_version: "01",
  scitt_draft_version: "10",
};
const statement = eventToStatement(
  template,
  { issuer: "https://conserver.example", kid: "test-key-1" },
  deterministicSigner,
);
const cose = (body: Uint8Array) => ({
  method: "POST",
  headers: { "content-type": "application/cose" },
  body: Buffer.from(body),
});

async function keys() {
  return keysFromKeySet(new Uint8Array(await (await suite.s.api("/.well-known/scitt-keys")).arrayBuffer()));
}

describe("SCITT registration", () => {
  it("refuses an untrusted issuer with RFC 9290 problem details, accepts it once its key is registered", async () => {
    const refused = await suite.s.api("/entries", { ...cose(statement), token: suite.token });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toContain("application/concise-problem-details+cbor");
    const problem = decodeCbor(new Uint8Array(await refused.arrayBuffer())) as Map<number, string>;
    expect(problem.get(-2)).toMatch(/not trusted/);
    await trustVectorKey(suite.s, suite.token);
    const ok = await suite.s.api("/entries", { ...cose(statement), token: suite.token, redirect: "manual" });
    expect([201, 303]).toContain(ok.status);
    const location = ok.headers.get("location") ?? "";
    expect(location).toMatch(/^\/entries\/events_/);
    // Registered with a token in a closed tenancy's log: that tenancy's, not public.
    const receipt = await until(async () => {
      const r = await suite.s.api(location, { redirect: "manual", token: suite.token });
      return r.status === 200 ? new Uint8Array(await r.arrayBuffer()) : undefined;
    });
    expect((await suite.s.api(location)).status).toBe(401);
    expect((await suite.s.api(`${location}/statement`)).status).toBe(401);
    const transparent = new Uint8Array(
      await (
        await suite.s.api(`${location}/statement?transparent=true`, { token: suite.token })
      ).arrayBuffer(),
    );
    const verdict = verifyStatement(transparent, {
      issuerKeys: new Map([["test-key-1", vectorPublicKey]]),
      serviceKeys: await keys(),
    });
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ ok: true, receipts: 1 });
    expect(
      verifyStatement(statement, {
        issuerKeys: new Map([["test-key-1", vectorPublicKey]]),
        serviceKeys: await keys(),
        receipts: [receipt],
      }).ok,
    ).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "scitt-cli-"));
    writeFileSync(join(dir, "t.cose"), transparent);
    writeFileSync(join(dir, "issuer.jwk"), JSON.stringify(vectorPublicKey.jwk));
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((c) => out.push(String(c)) > 0);
    // Keys fetched from the service are its own claim: the verdict is self-consistent, not verified.
    const code = await verifyCommand.run([
      join(dir, "t.cose"),
      "--url",
      suite.s.url,
      "--issuer-key",
      `test-key-1=${join(dir, "issuer.jwk")}`,
    ]);
    writeFileSync(join(dir, "payload.bin"), "not the vcon");
    const badPayload = await verifyCommand.run([
      join(dir, "t.cose"),
      "--url",
      suite.s.url,
      "--issuer-key",
      `test-key-1=${join(dir, "issuer.jwk")}`,
      "--payload",
      join(dir, "payload.bin"),
    ]);
    spy.mockRestore();
    expect(code, out.join("")).toBe(2);
    expect(out.join("")).toMatch(/^SELF-CONSISTENT, KEYS NOT PINNED: statement by /m);
    expect(badPayload).toBe(1);
    const tampered = new Uint8Array(transparent);
    tampered[20] = (tampered[20] as number) ^ 1;
    expect(
      verifyStatement(tampered, {
        issuerKeys: new Map([["test-key-1", vectorPublicKey]]),
        serviceKeys: await keys(),
      }).ok,
    ).toBe(false);
  });

  it("registers through the DataTrails form with an x5chain to a tenancy CA", async () => {
    const ca = readFileSync(new URL("../../../fixtures/pki/ca.pem", import.meta.url), "utf8");
    expect(
      (
        await suite.s.api("/archivist/v1/tlscacertificates", {
          method: "POST",
          token: suite.token,
          json: { display_name: "statement CA", certificate: ca },
        })
      ).status,
    ).toBe(200);
    const leaf = new X509Certificate(
      readFileSync(new URL("../../../fixtures/pki/issuer.pem", import.meta.url)),
    );
    const key = createPrivateKey(
      readFileSync(new URL("../../../fixtures/pki/issuer.pk8.pem", import.meta.url)),
    );
    const base = decodeSign1(
      eventToStatement(
        { ...template, vcon_operation: "vcon_redacted", arc_display_type: "vcon_redacted" },
        { issuer: "https://conserver.example", kid: "x5" },
        nodeSigner(key),
      ),
    );
    const h = new Map(base.protectedHeader);
    h.set(HEADER.x5chain, new Uint8Array(leaf.raw));
    const signed = signSign1({ protectedHeader: h, payload: base.payload as Uint8Array }, nodeSigner(key));
    // Asked for JSON by name: DataTrails' form answers CBOR otherwise, as DataTrails does.
    const json = { accept: "application/json" };
    const res = await suite.s.api("/archivist/v1/publicscitt/entries", {
      ...cose(signed),
      headers: { ...cose(signed).headers, ...json },
      token: suite.token,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const { operationID } = (await res.json()) as { operationID: string };
    const done = await until(async () => {
      const r = await suite.s.api(`/archivist/v1/publicscitt/operations/${operationID}`, {
        token: suite.token,
        headers: json,
      });
      const b = (await r.json()) as { status: string; entryID?: string };
      return b.status === "succeeded" ? b : undefined;
    });
    const receipt = new Uint8Array(
      await (
        await suite.s.api(`/archivist/v1/publicscitt/entries/${done.entryID}/receipt`, { token: suite.token })
      ).arrayBuffer(),
    );
    // A DataTrails-form entry is a public asset event: its leaf is the record's, so the record
    // goes with the statement (as DataTrails' own clients read it from the public event).
    const record = (await (
      await suite.s.api(
        `/archivist/v2/public${String(done.entryID).replace(/^assets_(.*)_events_/, "assets/$1/events/")}`,
      )
    ).json()) as ApiRecord;
    expect(
      verifyStatement(attachReceipts(signed, [], record), {
        issuerKeys: new Map([["x5", nodePublicKey(leaf.publicKey)]]),
        serviceKeys: await keys(),
        receipts: [receipt],
      }).ok,
    ).toBe(true);
    // The same certificate may not speak for another issuer: the refusal names the reason.
    const claims = new Map(h.get(HEADER.cwtClaims) as Map<number, unknown>);
    claims.set(1, "https://vendor.example");
    h.set(HEADER.cwtClaims, claims as never);
    const impersonating = signSign1(
      { protectedHeader: h, payload: base.payload as Uint8Array },
      nodeSigner(key),
    );
    const refused = await suite.s.api("/archivist/v1/publicscitt/entries", {
      ...cose(impersonating),
      token: suite.token,
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/not named by the x5chain leaf/);
    const junk = await suite.s.api("/archivist/v1/publicscitt/entries", {
      ...cose(new Uint8Array([1, 2, 3])),
      token: suite.token,
    });
    expect(junk.status).toBe(400);
    expect(((await junk.json()) as { detail: string }).detail.length).toBeGreaterThan(5);
  });

  it("serves the statement of a template event, and its transparent form with the event's receipt", async () => {
    const asset = await createAsset(suite.s, suite.token, {
      arc_display_type: "vcon",
      subject: template.subject,
    });
    const ev = (await (
      await postEvent(suite.s, suite.token, asset.identity, evidence(template))
    ).json()) as Record<string, unknown> & { identity: string };
    const st = await suite.s.api(`/archivist/v2/${ev.identity}/statement`, { token: suite.token });
    expect(st.status).toBe(200);
    const bytes = new Uint8Array(await st.arrayBuffer());
    const issuerKeys = await keys();
    expect(verifyStatement(bytes, { issuerKeys, serviceKeys: issuerKeys }).ok).toBe(true);
    const committed = await until(async () => {
      const e = (await (
        await suite.s.api(`/archivist/v2/${ev.identity}`, { token: suite.token })
      ).json()) as Record<string, unknown>;
      return e.confirmation_status === "CONFIRMED" || e.confirmation_status === "UNEQUIVOCAL" ? e : undefined;
    });
    const transparent = decodeSign1(
      new Uint8Array(
        await (
          await suite.s.api(`/archivist/v2/${ev.identity}/statement?transparent=true`, { token: suite.token })
        ).arrayBuffer(),
      ),
    );
    const receipts = transparent.unprotectedHeader.get(HEADER.receipts) as Uint8Array[];
    expect(verifyRecordReceipt(committed, receipts[0] as Uint8Array, issuerKeys).ok).toBe(true);
    const plain = await newAsset(suite.s, suite.token, "plain");
    const plainEvent = (await (
      await postEvent(suite.s, suite.token, plain, evidence({ arc_display_type: "x" }))
    ).json()) as { identity: string };
    expect(
      (await suite.s.api(`/archivist/v2/${plainEvent.identity}/statement`, { token: suite.token })).status,
    ).toBe(400);
  });
});
