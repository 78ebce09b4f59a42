import { createPrivateKey, createPublicKey } from "node:crypto";
import type { Logger } from "pino";
import type { Db } from "../store/db.js";
import { type LegacyKeyRow, takeLegacyKeys } from "../store/legacy-keys.js";
import { FILE_HOLDER, secretPublicJwk } from "./file-keys.js";
import type { KeyAlg } from "./key-backend.js";
import type { KeyDirectory, KeyEntry } from "./key-directory.js";

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

/** Writes one legacy key into the directory (or checks it is there) and reads it back. */
async function adopt(dir: KeyDirectory, row: LegacyKeyRow, log: Logger): Promise<void> {
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

/**
 * Upgrade: an earlier version kept every private key in the `signing_keys` table. On the first
 * start of this one, each row's key is written to the key directory, read back and checked
 * against the public key it published, and then the table is dropped, in one transaction under
 * the migrations' lock (a second process starting at once waits, then finds no table). Logged per
 * key, never with its private part. Returns the purposes moved.
 */
export async function moveLegacyKeys(db: Db, dir: KeyDirectory, log: Logger): Promise<string[]> {
  const rows = await takeLegacyKeys(db, async (rows) => {
    for (const row of rows) {
      await adopt(dir, row, log);
      log.info(
        { purpose: row.purpose, kid: row.kid, key_dir: dir.path },
        "moved a key out of the database into the key directory",
      );
    }
  });
  if (rows.length > 0)
    log.warn(
      { moved: rows.length, key_dir: dir.path },
      "the database no longer holds private keys; backups made before this start still do: rotate the keys (archivist keys rotate) if they may have leaked",
    );
  return rows.map((r) => r.purpose);
}
