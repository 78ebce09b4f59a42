import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import type { Config } from "./config.js";
import type { Ctx } from "./context.js";
import { buildApp } from "./http/app.js";
import { provision } from "./services/provisioning.js";
import { Keyring } from "./store/keyring.js";
import { openDb } from "./store/open.js";
import { startWorkers, type Workers } from "./workers/index.js";

/** A running service: its address, context, and a graceful stop. */
export interface RunningService {
  url: string;
  ctx: Ctx;
  server: Server;
  workers: Workers;
  close(): Promise<void>;
}

/** Opens storage, provisions, and serves the API (and, unless disabled, the workers) until closed. */
export async function startService(config: Config, opts: { listen?: boolean } = {}): Promise<RunningService> {
  const log = pino({ level: config.logLevel, base: { service: "archivist" } });
  if (!config.dataDir.startsWith("memory://")) mkdirSync(config.dataDir, { recursive: true });
  const db = await openDb(config);
  let workers: Workers | undefined;
  const ctx: Ctx = {
    db,
    config,
    log,
    keys: new Keyring(db),
    wake: { commit: (t) => workers?.wakeCommit(t) },
  };
  const built = buildApp(ctx, async () => workers?.ready());
  const server = built.app.listen(opts.listen === false ? 0 : config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.host}:${port}`;
  if (!config.baseUrlExplicit) config.baseUrl = url;
  await provision(ctx);
  const running = config.workers ? startWorkers(ctx) : startWorkers(ctx, { none: true });
  workers = running;
  log.info({ url, db: db.kind }, "archivist listening");
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await running.stop();
      await db.close();
    })();
    return closing;
  };
  return { url, ctx, server, workers: running, close };
}
