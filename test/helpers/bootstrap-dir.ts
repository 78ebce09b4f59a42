import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A fresh directory for a service the test starts and stops itself: its data and key
 * directories, and a bootstrap file making one tenancy (`displayName`) with an owner application.
 */
export function bootstrapDir(prefix: string, displayName: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const dataDir = join(dir, "data");
  const tenant = randomUUID();
  const owner = { client_id: randomUUID(), client_secret: `secret-${randomUUID()}` };
  const bootstrap = join(dir, "bootstrap.json");
  writeFileSync(
    bootstrap,
    JSON.stringify({
      tenancies: [{ id: tenant, display_name: displayName, owner, members: [], quotas: {} }],
    }),
  );
  return { dir, dataDir, keyDir: join(dataDir, "keys"), tenant, owner, bootstrap };
}
