import { createPrivateKey, createPublicKey } from "node:crypto";
import type { Logger } from "pino";
import type { Db } from "../store/drivers/db.js";
import { type LegacyKeyRow, type LegacyTable, takeLegacyKeys } from "../store/identity/legacy-keys.js";
import { FILE_HOLDER, secretPublicJwk } from "./file-keys.js";
import type { KeyAlg } from "./key-backend.js";
import type { KeyDirectory, KeyEntry } from "./key-directory.js";

const TABLE = "signing_keys";

/** A row as the earlier version wrote it, or an error naming what is not. */
function keyRow(r: Record<string, unknown>): LegacyKeyRow {
  const { purpose, kid, alg, private_pkcs8, public_jwk, created_at } = r;
  if (
    typeof purpose !== "string" ||
    typeof kid !== "string" ||
    typeof alg !== "string" ||
    typeof private_pkcs8 !== "string" ||
    typeof public_jwk !== "object" ||
    public_jwk === null ||
    !(typeof created_at === "string" || created_at instanceof Date)
  )
    throw new Error(`a row of ${TABLE} is not a key as the earlier version stored one`);
  return { purpose, kid, alg, private_pkcs8, public_jwk: public_jwk as Record<string, unknown>, created_at };
}

/** The file and manifest entry of a key an earlier version kept in `signing_keys`, checked to be that key. */
function entryOf(row: LegacyKeyRow): { entry: KeyEntry; file: string; text: string } {
  const created = new Date(row.created_at).toISOString();
  const alg = row.alg as KeyAlg;
  const entry = (file: string, public_jwk: Record<string, unknown>): KeyEntry => ({
    kid: row.kid,
    alg,
    holder: FILE_HOLDER,
    ref: file,
    public_jwk,
    created_at: created,
    retired_at: null,
  });
  if (alg === "ML-DSA-44" || alg === "HS256") {
    const secret = Buffer.from(row.private_pkcs8, "base64");
    if (secret.length !== 32) throw new Error(`the stored ${row.purpose} secret is not 32 bytes`);
    const file = `${row.kid}.secret`;
    return {
      entry: entry(file, secretPublicJwk(alg, new Uint8Array(secret))),
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
  return { entry: entry(file, jwk), file, text: row.private_pkcs8 };
}

/** Writes one legacy key into the (empty) directory as its purpose's first key, and reads it back. */
async function adopt(
  dir: KeyDirectory,
  purpose: string,
  { entry, file, text }: ReturnType<typeof entryOf>,
): Promise<void> {
  await dir.writePrivate(purpose, file, text);
  if ((await dir.readPrivate(purpose, file)) !== text)
    throw new Error(`the ${purpose} key did not read back as written`);
  const won = await dir.createFirst(purpose, entry);
  if (!won.keys.some((k) => k.kid === entry.kid))
    throw new Error(`another process made a different ${purpose} key while the old one moved`);
}

/** What a refused row names, as far as it names anything (never its private part). */
const named = (r: Record<string, unknown>) => ({
  purpose: typeof r.purpose === "string" ? r.purpose : null,
  kid: typeof r.kid === "string" ? r.kid : null,
  alg: typeof r.alg === "string" ? r.alg : null,
});

/**
 * Why the table cannot be an earlier version's keys on their way out: the move is recorded, or
 * the key directory already holds keys (so this is not the first start of this version).
 * Undefined when it can.
 */
async function refusal(table: LegacyTable, dir: KeyDirectory): Promise<string | undefined> {
  if (table.recorded)
    return "031-keys-out-of-database is recorded: the keys left the database at an earlier start";
  const held = await dir.purposes();
  if (held.length > 0) return `the key directory already holds keys (${held.join(", ")})`;
  return undefined;
}

/**
 * Upgrade: an earlier version kept every private key in the `signing_keys` table. On the first
 * start of this one, each row's key is written to the key directory, read back and checked
 * against the public key it published, and then the table is dropped, in one transaction under
 * the migrations' lock (a second process starting at once waits, then finds no table). Logged per
 * key, never with its private part. Returns the purposes moved.
 *
 * The key history is the service's authority: it grows only through the key directory (or the
 * HSM) and `archivist keys`, never from rows, since whoever can write to the database could
 * otherwise add keys of its own, to be published and trusted at the next start. So the table is
 * adopted only on a genuine first upgrade (the move not recorded, the key directory holding no
 * key); otherwise it is refused loudly and left as it is, for the operator to inspect. The empty
 * table migration 001 makes on a fresh database adopts nothing and is dropped.
 */
export async function moveLegacyKeys(db: Db, dir: KeyDirectory, log: Logger): Promise<string[]> {
  const moved: string[] = [];
  const table = await takeLegacyKeys(db, async (table) => {
    if (table.rows.length === 0 && !table.recorded) return "drop";
    const why = await refusal(table, dir);
    if (why) {
      log.error(
        {
          table: TABLE,
          refused: table.rows.map(named),
          reason: why,
          key_dir: dir.path,
        },
        `refusing the ${TABLE} table: its ${table.rows.length} key(s) are not adopted, and the table is left as it is. ` +
          `The service's keys come only from the key directory (or the HSM) and archivist keys, never from database rows (${why}): ` +
          `whoever can write to the database may have planted it. Inspect it (who wrote it, when) and drop it (drop table ${TABLE}); ` +
          "the service goes on with the keys of its key directory",
      );
      return "keep";
    }
    // Every row is checked before any file is written: a bad one leaves the directory as it was.
    const keys = table.rows
      .map(keyRow)
      .sort((a, b) => a.purpose.localeCompare(b.purpose))
      .map((row) => ({ row, key: entryOf(row) }));
    for (const { row, key } of keys) {
      await adopt(dir, row.purpose, key);
      moved.push(row.purpose);
      log.info(
        { purpose: row.purpose, kid: row.kid, key_dir: dir.path },
        "moved a key out of the database into the key directory",
      );
    }
    return "drop";
  });
  if (table?.dropped && moved.length > 0)
    log.warn(
      { moved: moved.length, key_dir: dir.path },
      "the database no longer holds private keys; backups made before this start still do: rotate the keys (archivist keys rotate) if they may have leaked",
    );
  return table?.dropped ? moved : [];
}
