import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config.js";
import { FileKeys } from "../../../src/keys/file-keys.js";
import { KeyDirectory } from "../../../src/keys/key-directory.js";
import { Keyring } from "../../../src/keys/keyring.js";
import { tenantWalletAddress } from "../../../src/services/identity/tenant-wallet.js";
import { type Db, StorageError } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import { openDb } from "../../../src/store/drivers/open.js";
import { briefCache } from "../../../src/store/query/brief-cache.js";
import { bareTestDb, freshPostgresDatabase, testEngine } from "../../helpers/databases.js";

// Issue 31: on PGlite, code inside a transaction that awaited the database handle itself (the
// keyring deriving a wallet address on a cold cache) waited for the very transaction it ran in,
// and the service wedged. On PostgreSQL (one pooled connection here) it is the same wait.
let db: Db;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ db, close } = await bareTestDb("transaction-scope"));
  await migrate(db);
});
afterAll(() => close());

const LOUD = /inside one of its transactions/;

describe("a second handle inside a transaction", () => {
  it("a query through the database handle inside its own transaction fails loudly instead of waiting", async () => {
    const outcome = db.transaction(async (tx) => {
      await tx.query("select 1");
      return db.query("select 1");
    });
    await expect(outcome).rejects.toThrow(StorageError);
    await expect(outcome).rejects.toThrow(LOUD);
    // The refused transaction rolled back and the handle still answers.
    expect(await db.query<{ one: number }>("select 1 as one")).toEqual([{ one: 1 }]);
  });

  it("a nested transaction and a ping through the handle fail loudly too", async () => {
    await expect(db.transaction(() => db.transaction(async () => 1))).rejects.toThrow(LOUD);
    await expect(db.transaction(() => db.ping())).rejects.toThrow(LOUD);
  });

  it("the keyring refuses to be used inside a transaction, even when its answer is cached", async () => {
    const dir = new KeyDirectory(mkdtempSync(join(tmpdir(), "archivist-keys-")));
    const keys = new Keyring(db, dir, new FileKeys(dir));
    const tenant = "6a009b40-eb55-4159-81f0-69024f89f53c";
    // A cold keyring reads through the handle: refused, not a wait.
    await expect(db.transaction(() => tenantWalletAddress(keys, tenant))).rejects.toThrow(LOUD);
    // Warm, the answer may be a load another request still runs through the handle: refused too.
    const address = await tenantWalletAddress(keys, tenant);
    expect(address).toMatch(/^0x[0-9a-f]{40}$/);
    await expect(db.transaction(() => tenantWalletAddress(keys, tenant))).rejects.toThrow(LOUD);
    await expect(db.transaction(() => keys.hmacSecret())).rejects.toThrow(LOUD);
    expect(await tenantWalletAddress(keys, tenant)).toBe(address);
  });

  it("a shared cached answer is refused through the handle inside a transaction, and served through the transaction", async () => {
    const cache = briefCache(
      60_000,
      async (q, key) => (await q.query<{ v: string }>("select $1::text as v", [key]))[0]?.v,
    );
    expect(await cache.get(db, "a")).toBe("a");
    await expect(db.transaction(() => cache.get(db, "a"))).rejects.toThrow(LOUD);
    expect(await db.transaction((tx) => cache.get(tx, "b"))).toBe("b");
  });

  it("other callers' statements wait for the transaction and then run", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((r) => {
      entered = r;
    });
    const tx = db.transaction(async (t) => {
      await t.query("select 1");
      entered();
      await held;
      return "committed";
    });
    await inside;
    // Another request's flow: not inside the transaction, so it is not refused; it waits its turn.
    const outside = db.query<{ n: number }>("select 2 as n");
    release();
    expect(await tx).toBe("committed");
    expect(await outside).toEqual([{ n: 2 }]);
  });

  it("work a transaction leaves running is no longer inside it once the transaction has ended", async () => {
    let later: Promise<unknown> = Promise.resolve();
    await db.transaction(async (t) => {
      await t.query("select 1");
      later = new Promise((r) => setTimeout(r, 20)).then(() => db.query("select 3 as n"));
    });
    expect(await later).toEqual([{ n: 3 }]);
  });
});

describe("the guard's default per engine (store/drivers/open.ts)", () => {
  it("is on for PGlite and off for PostgreSQL, where ARCHIVIST_TRANSACTION_GUARD=on turns it on", async () => {
    const inside = (d: Db) =>
      d.transaction(async (tx) => (await tx.query("select 1")) && d.query("select 1"));
    if (testEngine() === "pglite") {
      const d = await openDb({ dataDir: "memory://guard-default" });
      try {
        await expect(inside(d)).rejects.toThrow(LOUD);
      } finally {
        await d.close();
      }
      return;
    }
    const fresh = await freshPostgresDatabase();
    try {
      // Off by default: the handle takes another pooled connection, as it always could on PostgreSQL.
      const plain = await openDb({ databaseUrl: fresh.url, dataDir: "unused" });
      try {
        expect(await inside(plain)).toEqual([{ "?column?": 1 }]);
      } finally {
        await plain.close();
      }
      const config = loadConfig({ DATABASE_URL: fresh.url, ARCHIVIST_TRANSACTION_GUARD: "on" });
      const guarded = await openDb(config);
      try {
        await expect(inside(guarded)).rejects.toThrow(LOUD);
      } finally {
        await guarded.close();
      }
    } finally {
      await fresh.drop();
    }
  });

  it("reads ARCHIVIST_TRANSACTION_GUARD as on, off or unset, and refuses anything else", () => {
    expect(loadConfig({}).transactionGuard).toBeUndefined();
    expect(loadConfig({ ARCHIVIST_TRANSACTION_GUARD: "on" }).transactionGuard).toBe(true);
    expect(loadConfig({ ARCHIVIST_TRANSACTION_GUARD: "off" }).transactionGuard).toBe(false);
    expect(() => loadConfig({ ARCHIVIST_TRANSACTION_GUARD: "yes" })).toThrow(ConfigError);
  });
});
