import { type KeyObject, sign } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSeal } from "../../../src/core/log/seal.js";
import { nodeSigner } from "../../../src/core/node/crypto.js";
import { decodeSeal } from "../../../src/formats/cose/seal.js";
import { KeyDirectory } from "../../../src/keys/key-directory.js";
import { moveLegacyKeys } from "../../../src/keys/legacy-keys.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { openPglite } from "../../../src/store/drivers/pglite.js";
import { openPostgres } from "../../../src/store/drivers/postgres.js";
import { getSeal } from "../../../src/store/ledger/seals.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";
import { legacyKeyPair } from "../../helpers/legacy-key.js";
import { until } from "../../helpers/poll.js";
import { createAsset, evidence, postEvent } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { untilSealed } from "../../helpers/vcon-event.js";

// Issue 71 (critical): whoever can write to the database, and nothing else, must not be able to
// add keys to the service's history. Here such a writer plants an earlier version's
// `signing_keys` table with keys of its own (seal, token, log), and forges the newest seal with
// its seal key. At the next start the table is refused and left in place; nothing it holds is
// published, accepted or trusted.

const planted = {
  seal: legacyKeyPair("seal", "ES256"),
  token: legacyKeyPair("token", "RS256"),
  tlog: legacyKeyPair("tlog", "Ed25519"),
};

const dataDir = mkdtempSync(join(tmpdir(), "archivist-planted-"));
const keyDir = join(dataDir, "keys");
let pg: { url: string; drop(): Promise<void> } | undefined;
let s: TestService;
let tenant: string;
let recordId: string;

/** Every manifest of the key directory, by its path. */
function manifests(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const purpose of readdirSync(keyDir, { withFileTypes: true }))
    if (purpose.isDirectory() && readdirSync(join(keyDir, purpose.name)).includes("keys.json"))
      out[purpose.name] = readFileSync(join(keyDir, purpose.name, "keys.json"), "utf8");
  return out;
}

/** What the service publishes of its keys, as bytes or text to compare. */
async function published(): Promise<Record<string, string>> {
  const text = async (path: string) => {
    const res = await s.api(path);
    expect(res.status, path).toBe(200);
    return Buffer.from(await res.arrayBuffer()).toString("base64");
  };
  return {
    jwks: await text("/appidpv1/.well-known/jwks.json"),
    scittKeys: await text("/.well-known/scitt-keys"),
    scrapiJwks: await text("/jwks"),
    keys: await text("/archivist/v1/keys"),
    tlogKeys: await text(`/archivist/v1/merklelogs/${tenant}/tlog/keys`),
    tlogKey: await text(`/archivist/v1/merklelogs/${tenant}/tlog/key`),
  };
}

const receiptStatus = async (token: string) => {
  const res = await s.api(`/archivist/v1/receipts/${recordId}`, { token });
  await res.arrayBuffer();
  return res.status;
};

/** The database the service runs on, opened while it is stopped. */
const openData = (): Promise<Db> => (pg ? openPostgres(pg.url, 1) : openPglite(join(dataDir, "pgdata")));

/** The attacker's work, with write access to the database only. */
async function plant(db: Db): Promise<void> {
  await db.query(
    `create table signing_keys (purpose text primary key, kid text not null unique, alg text not null,
       private_pkcs8 text not null, public_jwk jsonb not null, created_at timestamptz not null default now())`,
  );
  for (const k of Object.values(planted))
    await db.query(
      "insert into signing_keys (purpose, kid, alg, private_pkcs8, public_jwk) values ($1, $2, $3, $4, $5::jsonb)",
      [k.purpose, k.kid, k.alg, k.private_pkcs8, JSON.stringify(k.public_jwk)],
    );
  // The newest seal, signed again over the same state with the planted seal key.
  const seal = await getSeal(db, tenant);
  if (!seal) throw new Error("no seal to forge");
  const state = decodeSeal(seal.seal);
  const forged = buildSeal(
    { kid: planted.seal.kid, issuer: state.issuer, logId: state.logId, state },
    nodeSigner(planted.seal.privateKey),
  );
  await db.query("update seals set seal = $3 where tenant_id = $1 and mmr_size = $2", [
    tenant,
    seal.mmr_size,
    Buffer.from(forged),
  ]);
}

/** A JWT of the genuine token's header and claims, but the attacker's kid and RS256 signature. */
function forgedToken(genuine: string, key: KeyObject, kid: string): string {
  const [header, claims] = genuine.split(".") as [string, string];
  const h = { ...(JSON.parse(Buffer.from(header, "base64url").toString()) as Record<string, unknown>), kid };
  const input = `${Buffer.from(JSON.stringify(h)).toString("base64url")}.${claims}`;
  return `${input}.${sign("sha256", Buffer.from(input), key).toString("base64url")}`;
}

let before: { published: Record<string, string>; manifests: Record<string, string> };

beforeAll(async () => {
  pg = testEngine() === "postgres" ? await freshPostgresDatabase() : undefined;
  s = await startTestService({
    DATA_DIR: dataDir,
    ARCHIVIST_KEY_DIR: keyDir,
    ...(pg ? { DATABASE_URL: pg.url } : {}),
  });
  const token = await s.token(s.a);
  const asset = await createAsset(s, token, { arc_display_type: "t" });
  tenant = asset.tenant_identity.replace("tenant/", "");
  await postEvent(s, token, asset.identity, evidence({ arc_display_type: "t" }));
  await untilSealed(s, token, asset.identity);
  const events = (await (await s.api(`/archivist/v2/${asset.identity}/events`, { token })).json()) as {
    events: Array<{ identity: string }>;
  };
  recordId = events.events[0]?.identity as string;
  await until(async () => ((await receiptStatus(token)) === 200 ? true : undefined));
  // Every key the workers make on first use (the anchorer's validator key) made before the key
  // directory is read: one made after would pass for a planted key adopted.
  await s.service.workers.flush();
  before = { published: await published(), manifests: manifests() };
  await s.restart(async () => {
    const db = await openData();
    try {
      await plant(db);
    } finally {
      await db.close();
    }
  });
}, 180_000);
afterAll(async () => {
  await s?.stop();
  await pg?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe(`a signing_keys table planted by a database writer is refused (${testEngine()})`, () => {
  it("leaves the table and its rows where they are", async () => {
    const rows = await s.service.ctx.db.query<{ purpose: string; kid: string }>(
      "select purpose, kid from signing_keys order by purpose",
    );
    expect(rows).toEqual(
      Object.values(planted)
        .map((k) => ({ purpose: k.purpose, kid: k.kid }))
        .sort((a, b) => a.purpose.localeCompare(b.purpose)),
    );
  });

  it("publishes the keys it had, and none of the planted ones", async () => {
    const now = await published();
    expect(now).toEqual(before.published);
    const all = Object.values(now)
      .map((b) => Buffer.from(b, "base64").toString("latin1"))
      .join("\n");
    for (const k of Object.values(planted)) expect(all).not.toContain(k.kid);
  });

  it("refuses a token signed with the planted token key", async () => {
    const genuine = await s.token(s.a);
    const forged = forgedToken(genuine, planted.token.privateKey, planted.token.kid);
    const res = await s.api("/archivist/v2/assets", {
      method: "POST",
      token: forged,
      json: { attributes: { arc_display_type: "planted" } },
    });
    expect(res.status).toBe(401);
    // The same request with the genuine token is taken: only the signature's key differs.
    const ok = await s.api("/archivist/v2/assets", {
      method: "POST",
      token: genuine,
      json: { attributes: { arc_display_type: "genuine" } },
    });
    expect(ok.status).toBe(200);
  });

  it("refuses the record's receipt over a seal signed with the planted seal key", async () => {
    expect(await receiptStatus(await s.token(s.a))).not.toBe(200);
  });

  it("leaves the key directory's manifests as they were", () => {
    expect(manifests()).toEqual(before.manifests);
  });

  it("says so at every start, loudly, and neither adopts nor drops the table", async () => {
    const db = s.service.ctx.db;
    const refusalOf = async () => {
      const lines: Array<Record<string, unknown>> = [];
      const sink = new Writable({
        write(chunk, _enc, done) {
          lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
          done();
        },
      });
      expect(await moveLegacyKeys(db, new KeyDirectory(keyDir), pino(sink))).toEqual([]);
      // Nothing of a private key in what was said.
      for (const k of Object.values(planted))
        expect(JSON.stringify(lines)).not.toContain(k.private_pkcs8.split("\n")[1]);
      return lines.find((l) => l.level === 50);
    };
    const refusal = await refusalOf();
    expect(refusal?.table).toBe("signing_keys");
    expect(refusal?.reason).toMatch(/031-keys-out-of-database is recorded/);
    expect(refusal?.refused).toEqual(
      expect.arrayContaining(
        Object.values(planted).map((k) => ({ purpose: k.purpose, kid: k.kid, alg: k.alg })),
      ),
    );
    expect(String(refusal?.msg)).toMatch(/not adopted.*inspect it.*drop it/is);
    // The writer can delete the upgrade's record too: the key directory's own keys still refuse it.
    await db.query("delete from schema_migrations where id = '031-keys-out-of-database'");
    const again = await refusalOf();
    expect(again?.reason).toMatch(/the key directory already holds keys \(.*seal.*token.*\)/);
    expect((await db.query<{ n: number }>("select count(*)::int as n from signing_keys"))[0]?.n).toBe(3);
    expect(manifests()).toEqual(before.manifests);
  });
});
