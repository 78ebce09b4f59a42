import type { Queryable } from "./db.js";

/** A stored key pair, private part as PKCS#8 PEM (or raw secret, base64). */
export interface StoredKey {
  purpose: string;
  kid: string;
  alg: string;
  privatePkcs8: string;
  publicJwk: Record<string, unknown>;
}

interface Row {
  purpose: string;
  kid: string;
  alg: string;
  private_pkcs8: string;
  public_jwk: Record<string, unknown>;
}

const toKey = (r: Row): StoredKey => ({
  purpose: r.purpose,
  kid: r.kid,
  alg: r.alg,
  privatePkcs8: r.private_pkcs8,
  publicJwk: r.public_jwk,
});

/** Returns the key for `purpose`, storing `fresh()` first if none exists (first writer wins). */
export async function loadOrCreateKey(
  db: Queryable,
  purpose: string,
  fresh: () => StoredKey,
): Promise<StoredKey> {
  const found = await db.query<Row>("select * from signing_keys where purpose = $1", [purpose]);
  if (found[0]) return toKey(found[0]);
  const k = fresh();
  await db.query(
    `insert into signing_keys (purpose, kid, alg, private_pkcs8, public_jwk) values ($1, $2, $3, $4, $5::jsonb)
     on conflict (purpose) do nothing`,
    [purpose, k.kid, k.alg, k.privatePkcs8, JSON.stringify(k.publicJwk)],
  );
  const rows = await db.query<Row>("select * from signing_keys where purpose = $1", [purpose]);
  return toKey(rows[0] as Row);
}
