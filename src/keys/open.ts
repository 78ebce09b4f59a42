import type { Logger } from "pino";
import type { Db } from "../store/drivers/db.js";
import { FileKeys } from "./file-keys.js";
import type { KeyBackend } from "./key-backend.js";
import { KeyDirectory } from "./key-directory.js";
import { Keyring } from "./keyring.js";
import { moveLegacyKeys } from "./legacy-keys.js";
import { Pkcs11Keys, type Pkcs11Settings } from "./pkcs11-keys.js";

/**
 * The key directory, the configured backend for new signing keys, and the keyring over them; an
 * earlier version's keys are moved out of the database first (`moveLegacyKeys`).
 */
export async function openKeyring(
  config: { keyDir: string; keyBackend: "directory" | "pkcs11"; pkcs11: Pkcs11Settings | undefined },
  db: Db,
  log: Logger,
): Promise<Keyring> {
  const dir = new KeyDirectory(config.keyDir);
  await moveLegacyKeys(db, dir, log);
  const files = new FileKeys(dir);
  let backend: KeyBackend = files;
  if (config.keyBackend === "pkcs11" && config.pkcs11) {
    backend = await Pkcs11Keys.open(config.pkcs11);
    const onToken = (["ES256", "RS256", "Ed25519"] as const).filter((a) => backend.holds(a));
    const notOnToken = (["ES256", "RS256", "Ed25519"] as const).filter((a) => !backend.holds(a));
    log.info(
      {
        key_backend: "pkcs11",
        token: config.pkcs11.token,
        on_token: onToken,
        in_key_directory: [
          ...notOnToken,
          "ML-DSA-44 (tlog-ml-dsa-44: no PKCS#11 mechanism)",
          "HS256 (page-token MAC secret)",
          "A256GCM (secret-box: seals the secrets the database keeps, such as processors' webhook secrets)",
          "ES256K and X25519 (tenancies' wallet and tessera identity keys, never used to sign)",
        ],
        key_dir: config.keyDir,
      },
      "new signing keys are made on the PKCS#11 token; the kinds it cannot hold stay in the key directory",
    );
  }
  return new Keyring(db, dir, files, backend);
}
