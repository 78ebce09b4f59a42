// One process's first start against a shared key directory (keyring.test.ts starts several at once).

import { FileKeys } from "../../../src/keys/file-keys.js";
import { KeyDirectory } from "../../../src/keys/key-directory.js";
import { Keyring } from "../../../src/keys/keyring.js";
import type { Db } from "../../../src/store/drivers/db.js";

const dir = new KeyDirectory(process.argv[2] as string);
const keys = new Keyring({} as Db, dir, new FileKeys(dir));
const [token, seal] = await Promise.all([keys.get("token", "RS256"), keys.get("seal", "ES256")]);
process.stdout.write(`${token.kid} ${seal.kid}\n`);
