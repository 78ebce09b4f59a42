import { existsSync } from "node:fs";
import { join } from "node:path";
import { Command as Cli } from "commander";
import { ConfigError, loadConfig } from "../config.js";
import { flagNames } from "../config-flags.js";
import { type RunningService, startService } from "../server.js";
import type { Exit } from "./command.js";
import { declared } from "./declare.js";
import { UsageError } from "./usage.js";

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** What only the API serves: flags a process without it (worker, scan) would take and ignore. */
const API_ONLY = new Set([
  "port",
  "host",
  "rate-limit-rps",
  "result-limit",
  "scrapi-receipt-profile",
  "scrapi-wait-ms",
  "scrapi-pending-status",
  "headers-timeout-ms",
  "body-timeout-ms",
  "request-timeout-ms",
  "blob-max-bytes",
  "smtp-url",
  "bootstrap-file",
]);

/** The flags of the workers' process: everything but the API's. */
const WORKER_FLAGS = Object.keys(flagNames).filter((f) => !API_ONLY.has(f));

/**
 * A command with configuration variables as flags (`--port` for PORT, …): all of them, or only
 * those it uses (`only`), so that its help lists no flag that would do nothing.
 */
export function withConfigFlags(cli: Cli, only?: readonly string[]): Cli {
  for (const [flag, env] of Object.entries(flagNames))
    if (!only || only.includes(flag)) cli.option(`--${flag} <value>`, `sets ${env}`);
  return cli.addHelpText("after", "\nEach flag overrides its environment variable (README: Configuration).");
}

/** The config of a command: environment, overridden by its flags (commander's parsed options). */
export function configFromOptions(values: Record<string, unknown>) {
  const overrides: Record<string, string> = {};
  for (const [flag, env] of Object.entries(flagNames)) {
    const v = values[camel(flag)];
    if (typeof v === "string") overrides[env] = v;
  }
  if (values.workers === false) overrides.ARCHIVIST_NO_WORKERS = "true";
  try {
    return loadConfig(process.env, overrides);
  } catch (err) {
    // The configuration's refusals name their variable first ("PORT must be …"). One a flag set is
    // the command line's malformed value (64); the same value from the environment stays the
    // configuration's refusal (1).
    const named = err instanceof ConfigError ? /^[A-Z][A-Z0-9_]*/.exec(err.message)?.[0] : undefined;
    const flag = Object.entries(flagNames).find(([, env]) => env === named && env in overrides)?.[0];
    if (flag) throw new UsageError(`--${flag}: ${(err as Error).message}`);
    throw err;
  }
}

/** Where a newcomer goes next: the pages, and where the first credentials are. */
function welcome(service: RunningService): string {
  const c = service.ctx.config;
  const base = service.ctx.baseUrl;
  const kept = join(c.dataDir, "bootstrap.json");
  const credentials = c.bootstrapFile
    ? `the applications of ${c.bootstrapFile}`
    : existsSync(kept)
      ? `${kept} (client_id, client_secret)`
      : "an application's client id and secret";
  return (
    `\narchivist is answering on ${base}\n` +
    `  console   ${base}/console   sign in with ${credentials}\n` +
    `  verify    ${base}/verify    check a record and its receipt, no sign-in\n` +
    `  API docs  ${base}/docs\n\n`
  );
}

async function runUntilSignal(values: Record<string, unknown>, api: boolean): Promise<undefined> {
  const config = configFromOptions(values);
  const service = await startService(config, { api });
  const log = service.ctx.log;
  let stopping = false;
  if (api) process.stderr.write(welcome(service));
  const stop = (signal: string) => {
    if (stopping) {
      // A second Ctrl-C: the user does not want to wait for the drain.
      log.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    stopping = true;
    log.info({ signal, within_ms: config.shutdownTimeoutMs }, "shutting down");
    // Bounded whatever holds the drain up (a query that never answers, a stuck connection):
    // what was accepted is in the database, and the next start takes up its work.
    setTimeout(() => {
      log.error(
        { within_ms: config.shutdownTimeoutMs },
        "shutdown did not finish in time: exiting; work in flight is taken up again at the next start",
      );
      process.exit(1);
    }, config.shutdownTimeoutMs);
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  return undefined;
}

export const serveCommand = declared((exit: Exit) =>
  withConfigFlags(
    new Cli("serve")
      .description(
        "Serve the API and run the commit, seal, anchor, witnessing and scan workers in this process.",
      )
      .option("--no-workers", "API only: another process runs `archivist worker`"),
  ).action(async (values: Record<string, unknown>) => exit(await runUntilSignal(values, true))),
);

export const workerCommand = declared((exit: Exit) =>
  withConfigFlags(
    new Cli("worker").description(
      "Run only the workers, beside API processes started with `serve --no-workers` (PostgreSQL).",
    ),
    WORKER_FLAGS,
  ).action(async (values: Record<string, unknown>) => exit(await runUntilSignal(values, false))),
);
