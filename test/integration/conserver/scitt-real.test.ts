import { readFileSync } from "node:fs";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as scittLink from "../../../plugins/conserver/links/scitt.js";
import { coseStatementSigner, HttpRegistrar } from "../../../plugins/conserver/links/scitt-http.js";
import type { LinkContext, StatementSigner } from "../../../plugins/conserver/links/types.js";
import { MemoryVconStore } from "../../../plugins/conserver/store/memory-store.js";
import { parseVcon, vconUuid } from "../../../plugins/conserver/vcon.js";
import { verifyStatement } from "../../../src/verify/index.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { es256KeyPair } from "../../helpers/es256-key.js";
import { fixturePath } from "../../helpers/fixtures.js";
import { startTestService, type TestService } from "../../helpers/service.js";

const fixture = (name: string) => parseVcon(new Uint8Array(readFileSync(fixturePath(`vcon/${name}`))));
const { privateKey, publicKey } = es256KeyPair();
const KID = "conserver-test-key";

describe("scitt link → POST /entries of the real service", () => {
  let s: TestService;
  let ctx: LinkContext & { store: MemoryVconStore };
  const statements: Uint8Array[] = [];

  beforeAll(async () => {
    s = await startTestService();
    const token = await s.token(s.a);
    const res = await s.api("/archivist/v1/scitt/keys", {
      method: "POST",
      token,
      json: { kid: KID, public_jwk: publicKey.jwk },
    });
    expect(res.status).toBe(200);
    const inner = coseStatementSigner({ issuer: "https://conserver.test", kid: KID, key: privateKey });
    // Keeps what was signed, to verify the statement with its receipt afterwards.
    const signer: StatementSigner = {
      async sign(attrs) {
        const st = await inner.sign(attrs);
        statements.push(st);
        return st;
      },
    };
    const registrar = new HttpRegistrar({
      backend: { url: s.url, clientId: s.a.clientId, clientSecret: s.a.clientSecret },
      pollMs: 50,
      timeoutMs: 10_000,
    });
    ctx = {
      store: new MemoryVconStore(),
      log: pino({ level: "silent" }),
      defaultHashMode: "python-json",
      scitt: { signer, registrar },
    };
  }, 60_000);

  afterAll(() => s?.stop());

  async function serviceKeys() {
    return keysFromKeySet(new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()));
  }

  it("registers the vCon's statement and stores a receipt that verifies on the vCon", async () => {
    const doc = fixture("ietf-core03-ab_email_prob_followup_text_thread.vcon.json");
    const uuid = vconUuid(doc) as string;
    ctx.store.set(uuid, doc);
    expect(await scittLink.run(uuid, "scitt_created", { vcon_operation: "created" }, ctx)).toBe(uuid);
    const stored = await ctx.store.get(uuid);
    const analysis = (stored?.value.analysis ?? []) as Array<Record<string, unknown>>;
    const entry = analysis.find((a) => a.type === "scitt_receipt");
    expect(entry).toBeDefined();
    const record = JSON.parse(String(entry?.body)) as Record<string, string>;
    expect(record).toMatchObject({ vcon_operation: "vcon_created", subject: `vcon://${uuid}` });
    expect(record.entry_id).toMatch(/^events_/);
    const receipt = new Uint8Array(Buffer.from(record.cose_receipt as string, "base64"));
    const verdict = verifyStatement(statements.at(-1) as Uint8Array, {
      issuerKeys: new Map([[KID, publicKey]]),
      serviceKeys: await serviceKeys(),
      receipts: [receipt],
    });
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ ok: true });
  });

  it("registers a signed vCon but leaves the signed document unchanged", async () => {
    const doc = fixture("ietf-core03-ab_call_ext_rec_signed.vcon.json");
    const uuid = vconUuid(doc) as string;
    ctx.store.set(uuid, doc);
    expect(await scittLink.run(uuid, "scitt_signed", { vcon_operation: "signed" }, ctx)).toBe(uuid);
    expect((await ctx.store.get(uuid))?.text).toBe(doc.text);
  });

  it("fails with SCITT_REGISTRATION when the issuer key is not trusted", async () => {
    const other = es256KeyPair().privateKey;
    const doc = fixture("ietf-core03-ab_call_ext_rec.vcon.json");
    const uuid = vconUuid(doc) as string;
    ctx.store.set(uuid, doc);
    const bad: LinkContext = {
      ...ctx,
      scitt: {
        signer: coseStatementSigner({ issuer: "https://x.test", kid: "unknown", key: other }),
        registrar: (ctx.scitt as NonNullable<LinkContext["scitt"]>).registrar,
      },
    };
    await expect(scittLink.run(uuid, "scitt_bad", {}, bad)).rejects.toMatchObject({
      code: "SCITT_REGISTRATION",
    });
  });
});
