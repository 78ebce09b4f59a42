import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as cose from "@transmute/cose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodePublicKeyFromJwk } from "../../../src/core/node/crypto.js";
import { decodeSign1, verifySign1 } from "../../../src/formats/cose/index.js";
import type { Manifest } from "../../../src/keys/key-directory.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { verifyCheckpoint } from "../../../src/verify/tlog/log-check.js";
import { startChild } from "../../helpers/child-service.js";
import { freshPostgresDatabase } from "../../helpers/databases.js";
import { filesUnder, found, keyDirectoryNeedles } from "../../helpers/key-material.js";
import { until } from "../../helpers/poll.js";
import { freePort } from "../../helpers/ports.js";
import { createAsset } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { softHsmToken } from "../../helpers/softhsm.js";
import { untilSealed, vconEvent } from "../../helpers/vcon-event.js";

// Issue 51: the signing keys on a PKCS#11 token (SoftHSM2, a real PKCS#11 module), made there
// and never extractable. Seals, receipts, statements, tokens and checkpoints are signed through
// the token; our verifier and Transmute's @transmute/cose verify what it signed; what a token
// cannot hold (the ML-DSA-44 seed, the MAC secret) stays in the key directory, and the database
// holds none of it.
const hsm = softHsmToken();
const keyDir = mkdtempSync(join(tmpdir(), "archivist-hsm-keys-"));
let s: TestService;
let token: string;
beforeAll(async () => {
  s = await startTestService({ ...hsm.env, ARCHIVIST_KEY_DIR: keyDir, ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  token = await s.token(s.a);
}, 120_000);
afterAll(async () => {
  await s?.stop();
  hsm.close();
  rmSync(keyDir, { recursive: true, force: true });
});

const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer());
const manifest = (purpose: string) =>
  JSON.parse(readFileSync(join(keyDir, purpose, "keys.json"), "utf8")) as Manifest;

async function sealedEvent(): Promise<{
  asset: string;
  event: Record<string, unknown> & { identity: string };
}> {
  const vcon = crypto.randomUUID();
  const asset = await createAsset(s, token, { arc_display_type: "vcon" });
  await s.api(`/archivist/v2/${asset.identity}/events`, {
    method: "POST",
    token,
    json: vconEvent(vcon, "vcon_created", "2026-02-03"),
  });
  await untilSealed(s, token, asset.identity);
  const events = (await (await s.api(`/archivist/v2/${asset.identity}/events`, { token })).json()) as {
    events: Array<Record<string, unknown> & { identity: string }>;
  };
  return { asset: asset.identity, event: events.events[0] as Record<string, unknown> & { identity: string } };
}

describe(`signing keys on a PKCS#11 token: SoftHSM2 (${process.env.TEST_DB})`, () => {
  it("makes the ES256, RS256 and Ed25519 keys on the token, and keeps only what it cannot hold in the key directory", async () => {
    // A sealed record: the seal, checkpoint and issuer keys are made by now.
    await sealedEvent();
    // A list signs its page token with the MAC secret: made now, if not before.
    expect((await s.api("/archivist/v2/assets?page_size=1", { token })).status).toBe(200);
    // The log's and the anchor's keys are made on their workers' first run after the seal, which a
    // loaded machine may not have reached yet.
    const purposes = ["seal", "token", "tlog", "validator", "tlog-ml-dsa-44", "page-token"];
    await until(async () =>
      purposes.every((p) => existsSync(join(keyDir, p, "keys.json"))) ? true : undefined,
    );
    for (const purpose of ["seal", "token", "tlog", "validator"]) {
      const m = manifest(purpose);
      expect(
        m.keys.map((k) => k.holder),
        purpose,
      ).toEqual(["pkcs11"]);
      expect(readdirSync(join(keyDir, purpose)).filter((f) => !f.endsWith(".json"))).toEqual([]);
    }
    expect(manifest("tlog-ml-dsa-44").keys[0]?.holder).toBe("key-directory");
    expect(manifest("page-token").keys[0]?.holder).toBe("key-directory");
  });

  it("its receipts verify with our verifier and with @transmute/cose, its statements and checkpoints with the published keys", async () => {
    const { event } = await sealedEvent();
    const keySet = keysFromKeySet(await bytes(await s.api("/.well-known/scitt-keys")), nodePublicKeyFromJwk);
    const mmr = await until(async () => {
      const r = await s.api(`/archivist/v1/receipts/${event.identity}`, { token });
      return r.status === 200 ? bytes(r) : undefined;
    });
    expect(verifyRecordReceipt(event, mmr, keySet).ok).toBe(true);
    expect(verifyRecordReceipt({ ...event, event_attributes: {} }, mmr, keySet).ok).toBe(false);

    const rfc9162 = await until(async () => {
      const r = await s.api(`/archivist/v1/receipts/${event.identity}?profile=rfc9162`, { token });
      return r.status === 200 ? bytes(r) : undefined;
    });
    expect(verifyRecordReceipt(event, rfc9162, keySet).ok).toBe(true);
    const jwks = (await (await s.api("/jwks")).json()) as { keys: Array<Record<string, unknown>> };
    const verifier = await cose.detached.verifier({
      resolver: { resolve: async () => jwks.keys[0] as never },
    });
    const tenant = String(event.tenant_identity).replace("tenant/", "");
    const index = (event.merklelog_entry as { commit: { index: string } }).commit.index;
    const entry = (await (
      await s.api(`/archivist/v1/merklelogs/${tenant}/entries/${index}`, { token })
    ).json()) as { leaf: string };
    const leafData = new Uint8Array(Buffer.from(entry.leaf, "hex"));
    const root = await cose.receipt.inclusion.verify({
      entry: await cose.receipt.leaf(leafData),
      receipt: rfc9162 as never,
      verifier,
    });
    expect(root).toBeTruthy();
    const other: Promise<unknown> = cose.receipt.inclusion.verify({
      entry: await cose.receipt.leaf(new Uint8Array(createHash("sha256").update("x").digest())),
      receipt: rfc9162 as never,
      verifier,
    });
    expect(
      await other.then(
        (v) => v === false,
        () => true,
      ),
    ).toBe(true);

    // The statement is signed by the tenancy's issuer key, on the token.
    const statement = await bytes(await s.api(`/archivist/v2/${event.identity}/statement`, { token }));
    const kid = new TextDecoder().decode(decodeSign1(statement).protectedHeader.get(4) as Uint8Array);
    const issuerKey = keySet.get(kid);
    expect(issuerKey).toBeDefined();
    expect(verifySign1(statement, issuerKey as never)).toBeTruthy();

    // The checkpoint's Ed25519 signature, made by the token (CKM_EDDSA), against the published vkey.
    const vkey = (await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()).trim();
    const note = await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text();
    expect(verifyCheckpoint(note, { logVkey: vkey, witnessVkeys: [], quorum: 0 }).ok).toBe(true);
  });

  // A process of its own, started from the sources: slow on a loaded machine.
  it("a second process with the same token and the key manifests signs with the very same keys", {
    timeout: 240_000,
  }, async () => {
    const kids = (await (await s.api("/appidpv1/.well-known/jwks.json")).json()) as {
      keys: Array<{ kid: string }>;
    };
    const pg = process.env.TEST_DB === "postgres" ? await freshPostgresDatabase() : undefined;
    const data = mkdtempSync(join(tmpdir(), "archivist-hsm-second-"));
    // The keys' manifests (which name the token's objects), not the first deployment's signed
    // log states: those are of another database, which the second process would rightly refuse.
    const keys = join(data, "keys");
    cpSync(keyDir, keys, { recursive: true, filter: (src) => !src.startsWith(join(keyDir, "state")) });
    const port = await freePort();
    const other = await startChild(
      "serve",
      {
        ...hsm.env,
        ARCHIVIST_KEY_DIR: keys,
        DATA_DIR: data,
        DATABASE_URL: pg?.url ?? "",
        ARCHIVIST_BOOTSTRAP_FILE: "",
        REDIS_URL: "",
        BASE_URL: `http://127.0.0.1:${port}`,
      },
      port,
      120_000,
    );
    try {
      const again = (await (await fetch(`${other.url}/appidpv1/.well-known/jwks.json`)).json()) as {
        keys: Array<{ kid: string }>;
      };
      expect(again.keys.map((k) => k.kid)).toEqual(kids.keys.map((k) => k.kid));
      // It signs with them: its token (RS256 on the token, found by its CKA_ID) is accepted.
      const creds = JSON.parse(readFileSync(join(data, "bootstrap.json"), "utf8")) as Record<string, string>;
      const res = await fetch(`${other.url}/archivist/iam/v1/appidp/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: creds.client_id ?? "",
          client_secret: creds.client_secret ?? "",
        }),
      });
      const t = ((await res.json()) as { access_token: string }).access_token;
      expect(JSON.parse(Buffer.from(t.split(".")[0] ?? "", "base64url").toString()).kid).toBe(
        kids.keys[0]?.kid,
      );
      const assets = await fetch(`${other.url}/archivist/v2/assets`, {
        headers: { authorization: `Bearer ${t}` },
      });
      expect(assets.status).toBe(200);
    } finally {
      await other.kill("SIGTERM");
      await pg?.drop();
      rmSync(data, { recursive: true, force: true });
    }
  });

  it("the database holds none of the key directory's secrets and no private key", async () => {
    const needles = keyDirectoryNeedles(keyDir);
    expect(needles.length).toBeGreaterThan(10);
    const hits: string[] = [];
    if (process.env.TEST_DB === "postgres") {
      const url = (s.service.ctx.config.databaseUrl ?? "") as string;
      hits.push(...found(execFileSync("pg_dump", ["--no-owner", url], { maxBuffer: 1 << 30 }), needles));
    } else {
      const pgdata = join(s.dataDir, "pgdata");
      expect(existsSync(pgdata)).toBe(true);
      for (const f of filesUnder(pgdata)) hits.push(...found(f.bytes, needles));
    }
    expect(hits).toEqual([]);
  });
});
