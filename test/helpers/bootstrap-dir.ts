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
  const keyDir = join(dataDir, "keys");
  /**
   * The settings of a service on this directory that the test drives itself: commits, seals and
   * anchors wait for the test (workers.flush), their timers a minute apart; `more` adds or overrides.
   */
  const settings = (more: Record<string, string>): Record<string, string> => ({
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    ARCHIVIST_KEY_DIR: keyDir,
    ARCHIVIST_BOOTSTRAP_FILE: bootstrap,
    LOG_LEVEL: "silent",
    ARCHIVIST_COMMIT_MAX_DELAY_MS: "60000",
    ARCHIVIST_SEAL_INTERVAL_MS: "60000",
    ARCHIVIST_ANCHOR_INTERVAL_MS: "60000",
    ARCHIVIST_TRANSACTION_GUARD: "on",
    ...more,
  });
  return { dir, dataDir, keyDir, tenant, owner, bootstrap, settings };
}
