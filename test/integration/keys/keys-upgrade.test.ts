import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mlDsa44Keys } from "../../../src/core/log/ml-dsa-sign.js";
import { formatVkey } from "../../../src/core/log/note-sign.js";
import { nodePublicKeyFromJwk } from "../../../src/core/node/crypto.js";
import { ED25519, ML_DSA_44 } from "../../../src/formats/tlog/index.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import { openPglite } from "../../../src/store/drivers/pglite.js";
import { openPostgres } from "../../../src/store/drivers/postgres.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";
import { found, type Needle } from "../../helpers/key-material.js";
import { type LegacyKeyRow, legacyKeyPair } from "../../helpers/legacy-key.js";
import { until } from "../../helpers/poll.js";
import { createAsset, evidence, postEvent } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { untilSealed } from "../../helpers/vcon-event.js";

// Issue 51, upgrade: a deployment of the previous version kept its keys in `signing_keys`. The
// first start of this version moves them to the key directory, checks them, and drops the table;
// whatever they signed before still verifies, and the service goes on signing with them.

type LegacyRow = LegacyKeyRow;

const legacySeed = (purpose: string, alg: string): LegacyRow => ({
  purpose,
  alg,
  kid: `${alg.toLowerCase()}-${randomBytes(6).toString("hex")}`,
  private_pkcs8: randomBytes(32).toString("base64"),
  public_jwk: {},
});

const rows = [
  legacyKeyPair("seal", "ES256"),
  legacyKeyPair("token", "RS256"),
  legacyKeyPair("tlog", "Ed25519"),
  legacyKeyPair("validator", "ES256"),
  legacySeed("tlog-ml-dsa-44", "ML-DSA-44"),
  legacySeed("page-token", "HS256"),
];
const byPurpose = (p: string) => rows.find((r) => r.purpose === p) as LegacyRow;

const dataDir = mkdtempSync(join(tmpdir(), "archivist-upgrade-"));
let pg: { url: string; drop(): Promise<void> } | undefined;
let s: TestService;
let token: string;

/** The previous version's database: its whole schema and its keys in the table. */
async function legacyDatabase(): Promise<void> {
  const db: Db = pg ? await openPostgres(pg.url, 1) : await openPglite(join(dataDir, "pgdata"));
  try {
    await migrate(db);
    for (const r of rows)
      await db.query(
        "insert into signing_keys (purpose, kid, alg, private_pkcs8, public_jwk) values ($1, $2, $3, $4, $5::jsonb)",
        [r.purpose, r.kid, r.alg, r.private_pkcs8, JSON.stringify(r.public_jwk)],
      );
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  pg = testEngine() === "postgres" ? await freshPostgresDatabase() : undefined;
  await legacyDatabase();
  s = await startTestService({
    DATA_DIR: dataDir,
    ARCHIVIST_KEY_DIR: join(dataDir, "keys"),
    ...(pg ? { DATABASE_URL: pg.url } : {}),
  });
  token = await s.token(s.a);
}, 120_000);
afterAll(async () => {
  await s?.stop();
  await pg?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe(`upgrade: keys move out of the database on the first start (${testEngine()})`, () => {
  it("writes each stored key to the key directory as it was, and drops the table", async () => {
    const db = s.service.ctx.db;
    expect(
      (await db.query<{ t: string | null }>("select to_regclass('signing_keys')::text as t"))[0]?.t,
    ).toBeNull();
    const done = await db.query<{ id: string }>(
      "select id from schema_migrations where id = '031-keys-out-of-database'",
    );
    expect(done).toHaveLength(1);
    const keyDir = join(dataDir, "keys");
    for (const r of rows) {
      const m = JSON.parse(readFileSync(join(keyDir, r.purpose, "keys.json"), "utf8")) as {
        keys: Array<{ kid: string; ref: string; holder: string }>;
      };
      expect(
        m.keys.map((k) => k.kid),
        r.purpose,
      ).toEqual([r.kid]);
      const file = readFileSync(join(keyDir, r.purpose, m.keys[0]?.ref ?? ""), "utf8");
      expect(file.trim()).toBe(r.private_pkcs8.trim());
    }
  });

  it("goes on signing with the same keys: the published kids and log keys are the stored ones", async () => {
    const jwks = (await (await s.api("/appidpv1/.well-known/jwks.json")).json()) as {
      keys: Array<{ kid: string }>;
    };
    expect(jwks.keys.map((k) => k.kid)).toEqual([byPurpose("token").kid]);
    const keySet = keysFromKeySet(
      new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()),
      nodePublicKeyFromJwk,
    );
    expect([...keySet.keys()][0]).toBe(byPurpose("seal").kid);

    const asset = await createAsset(s, token, { arc_display_type: "t" });
    await postEvent(s, token, asset.identity, evidence({ arc_display_type: "t" }));
    await untilSealed(s, token, asset.identity);
    const events = (await (await s.api(`/archivist/v2/${asset.identity}/events`, { token })).json()) as {
      events: Array<Record<string, unknown> & { identity: string }>;
    };
    const event = events.events[0] as Record<string, unknown> & { identity: string };
    const receipt = await until(async () => {
      const r = await s.api(`/archivist/v1/receipts/${event.identity}`, { token });
      return r.status === 200 ? new Uint8Array(await r.arrayBuffer()) : undefined;
    });
    // Checked with the stored seal key alone: it is the key that signed.
    const sealOnly = new Map([[byPurpose("seal").kid, keySet.get(byPurpose("seal").kid)]]) as typeof keySet;
    expect(verifyRecordReceipt(event, receipt, sealOnly).ok).toBe(true);

    const tenant = asset.tenant_identity.replace("tenant/", "");
    const vkey = (await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text()).trim();
    const origin = vkey.split("+")[0] as string;
    const tlogPublic = new Uint8Array(Buffer.from(byPurpose("tlog").public_jwk.x as string, "base64url"));
    expect(vkey).toBe(formatVkey(origin, ED25519, tlogPublic));
    const mlDsa = (
      await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/key-ml-dsa-44`)).text()
    ).trim();
    const seed = new Uint8Array(Buffer.from(byPurpose("tlog-ml-dsa-44").private_pkcs8, "base64"));
    expect(mlDsa).toBe(formatVkey(origin, ML_DSA_44, mlDsa44Keys(seed).publicKey));
  });

  it("leaves no stored key in the database: every table's rows, and pg_dump's output on PostgreSQL", async () => {
    const needles: Needle[] = [
      { label: "a PEM private key marker", bytes: Buffer.from("PRIVATE KEY-----") },
      ...rows.map((r) => ({
        label: `${r.purpose}'s stored private key`,
        bytes: Buffer.from(r.private_pkcs8.split("\n")[1] ?? r.private_pkcs8),
      })),
    ];
    const db = s.service.ctx.db;
    const tables = await db.query<{ t: string }>(
      "select table_name as t from information_schema.tables where table_schema = 'public' order by 1",
    );
    expect(tables.length).toBeGreaterThan(20);
    let rowsText = "";
    for (const { t } of tables) rowsText += JSON.stringify(await db.query(`select * from "${t}"`));
    expect(found(Buffer.from(rowsText), needles)).toEqual([]);
    if (pg)
      expect(found(execFileSync("pg_dump", ["--no-owner", pg.url], { maxBuffer: 1 << 30 }), needles)).toEqual(
        [],
      );
  });
});
