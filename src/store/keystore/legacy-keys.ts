import { createPrivateKey, createPublicKey } from "node:crypto";
import type { Logger } from "pino";
import { mlDsa44Keys } from "../../verify/primitives.js";
import type { Db, Queryable } from "../db.js";
import { FILE_HOLDER } from "./file-keys.js";
import type { KeyAlg } from "./key-backend.js";
import type { KeyDirectory, KeyEntry } from "./key-directory.js";

// The same lock the migrations take: one process moves the keys, the others wait and find none.
const MIGRATION_LOCK = 7_245_001;

/** Recorded in schema_migrations once the keys are out of the database (the table is dropped). */
const KEYS_OUT_OF_DATABASE = "031-keys-out-of-database";

interface LegacyRow {
  purpose: string;
  kid: string;
  alg: string;
  private_pkcs8: string;
  public_jwk: Record<string, unknown>;
  created_at: Date | string;
}

/** The file and manifest entry of a key an earlier version kept in `signing_keys`, checked to be that key. */
function entryOf(row: LegacyRow): { entry: KeyEntry; file: string; text: string } {
  const created = new Date(row.created_at).toISOString();
  const alg = row.alg as KeyAlg;
  if (alg === "ML-DSA-44" || alg === "HS256") {
    const secret = Buffer.from(row.private_pkcs8, "base64");
    if (secret.length !== 32) throw new Error(`the stored ${row.purpose} secret is not 32 bytes`);
    const public_jwk =
      alg === "ML-DSA-44"
        ? {
            kty: "AKP",
            alg,
            pub: Buffer.from(mlDsa44Keys(new Uint8Array(secret)).publicKey).toString("base64url"),
          }
        : {};
    const file = `${row.kid}.secret`;
    return {
      entry: {
        kid: row.kid,
        alg,
        holder: FILE_HOLDER,
        ref: file,
        public_jwk,
        created_at: created,
        retired_at: null,
      },
      file,
      text: secret.toString("base64"),
    };
  }
  // The private key must be the one whose public half was published under this kid.
  const publicJwk = createPublicKey(createPrivateKey(row.private_pkcs8)).export({ format: "jwk" }) as Record<
    string,
    unknown
  >;
  for (const m of ["n", "e", "crv", "x", "y"])
    if (row.public_jwk[m] !== publicJwk[m])
      throw new Error(`the stored ${row.purpose} private key is not the key published as ${row.kid}`);
  const { alg: _a, use: _u, kid: _k, ...jwk } = row.public_jwk;
  const file = `${row.kid}.pem`;
  return {
    entry: {
      kid: row.kid,
      alg,
      holder: FILE_HOLDER,
      ref: file,
      public_jwk: jwk,
      created_at: created,
      retired_at: null,
    },
    file,
    text: row.private_pkcs8,
  };
}

/** Writes one legacy key into the directory (or checks it is there) and reads it back. */
async function adopt(dir: KeyDirectory, row: LegacyRow, log: Logger): Promise<void> {
  const { entry, file, text } = entryOf(row);
  const present = await dir.manifest(row.purpose);
  if (present?.keys.some((k) => k.kid === entry.kid)) {
    if ((await dir.readPrivate(row.purpose, file)).trim() !== text.trim())
      throw new Error(`the key directory's ${row.purpose} key ${entry.kid} differs from the database's`);
    return;
  }
  await dir.writePrivate(row.purpose, file, text);
  if ((await dir.readPrivate(row.purpose, file)) !== text)
    throw new Error(`the ${row.purpose} key did not read back as written`);
  if (!present) {
    const won = await dir.createFirst(row.purpose, entry);
    if (!won.keys.some((k) => k.kid === entry.kid))
      throw new Error(`another process made a different ${row.purpose} key while the old one moved`);
    return;
  }
  // A key directory that already has another key for the purpose: the database's key signed the
  // history, so it stays published, retired before the directory's own.
  log.warn(
    { purpose: row.purpose, kid: entry.kid },
    "the key directory already had a key for this purpose: the database's key is kept as a retired one",
  );
  await dir.update(row.purpose, async (m) => ({
    purpose: row.purpose,
    keys: [{ ...entry, retired_at: m?.keys[0]?.created_at ?? new Date().toISOString() }, ...(m?.keys ?? [])],
  }));
}

async function legacyTable(q: Queryable): Promise<boolean> {
  const rows = await q.query<{ t: string | null }>("select to_regclass('signing_keys')::text as t");
  return rows[0]?.t !== null && rows[0]?.t !== undefined;
}

/**
 * Upgrade: an earlier version kept every private key in the `signing_keys` table. On the first
 * start of this one, each row's key is written to the key directory, read back and checked
 * against the public key it published, and then the table is dropped, in one transaction under
 * the migrations' lock (a second process starting at once waits, then finds no table). Logged per
 * key, never with its private part. Returns the purposes moved.
 */
export async function moveLegacyKeys(db: Db, dir: KeyDirectory, log: Logger): Promise<string[]> {
  if (!(await legacyTable(db))) return [];
  return db.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    if (!(await legacyTable(tx))) return [];
    const rows = await tx.query<LegacyRow>(
      "select purpose, kid, alg, private_pkcs8, public_jwk, created_at from signing_keys order by purpose",
    );
    for (const row of rows) {
      await adopt(dir, row, log);
      log.info(
        { purpose: row.purpose, kid: row.kid, key_dir: dir.path },
        "moved a key out of the database into the key directory",
      );
    }
    await tx.query("drop table signing_keys");
    await tx.query("insert into schema_migrations (id) values ($1) on conflict do nothing", [
      KEYS_OUT_OF_DATABASE,
    ]);
    if (rows.length > 0)
      log.warn(
        { moved: rows.length, key_dir: dir.path },
        "the database no longer holds private keys; backups made before this start still do: rotate the keys (archivist keys rotate) if they may have leaked",
      );
    return rows.map((r) => r.purpose);
  });
}
