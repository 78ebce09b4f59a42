import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type RunningService, startService } from "../../../src/service-entry.js";

/** The service on its embedded default database in a temporary DATA_DIR, with one provisioned tenancy. */
export interface DemoService {
  url: string;
  clientId: string;
  clientSecret: string;
  service: RunningService;
  stop(): Promise<void>;
}

/**
 * Starts the service as `archivist serve` would, on a fresh temporary folder (removed by `stop`),
 * on `port` (0: one the system picks).
 */
export async function startDemoService(port = 0): Promise<DemoService> {
  const dataDir = mkdtempSync(join(tmpdir(), "archivist-demo-"));
  const clientId = randomUUID();
  const clientSecret = `demo-${randomUUID()}`;
  const bootstrap = join(dataDir, "bootstrap.json");
  writeFileSync(
    bootstrap,
    JSON.stringify({
      tenancies: [{ display_name: "vCon demo", owner: { client_id: clientId, client_secret: clientSecret } }],
    }),
  );
  // The process environment is not used: the demo must run the embedded default whatever is set.
  const config = loadConfig(
    {},
    {
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ARCHIVIST_BOOTSTRAP_FILE: bootstrap,
      LOG_LEVEL: "warn",
      ARCHIVIST_COMMIT_MAX_DELAY_MS: "50",
      ARCHIVIST_SEAL_INTERVAL_MS: "300",
    },
  );
  const service = await startService(config);
  return {
    url: service.url,
    clientId,
    clientSecret,
    service,
    async stop() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
