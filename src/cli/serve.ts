import { Command as Cli } from "commander";
import { flagNames, loadConfig } from "../config.js";
import { startService } from "../server.js";
import type { Exit } from "./commands.js";
import { declared } from "./declare.js";

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** A command with every configuration variable as a flag (`--port` for PORT, …). */
export function withConfigFlags(cli: Cli): Cli {
  for (const [flag, env] of Object.entries(flagNames)) cli.option(`--${flag} <value>`, `sets ${env}`);
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
  return loadConfig(process.env, overrides);
}

async function runUntilSignal(values: Record<string, unknown>, api: boolean): Promise<undefined> {
  const config = configFromOptions(values);
  const service = await startService(config, { api });
  const log = service.ctx.log;
  let stopping = false;
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

export const serveCommand = declared(
  "serve the API and run the workers (--no-workers: API only)",
  (exit: Exit) =>
    withConfigFlags(
      new Cli("serve")
        .description(
          "Serve the API and run the commit, seal, anchor, witnessing and scan workers in this process.",
        )
        .option("--no-workers", "API only: another process runs `archivist worker`"),
    ).action(async (values: Record<string, unknown>) => exit(await runUntilSignal(values, true))),
);

export const workerCommand = declared(
  "run only the commit, seal, anchor, witnessing and scan workers (PostgreSQL scale-out)",
  (exit: Exit) =>
    withConfigFlags(
      new Cli("worker").description(
        "Run only the workers, beside API processes started with `serve --no-workers` (PostgreSQL).",
      ),
    ).action(async (values: Record<string, unknown>) => exit(await runUntilSignal(values, false))),
);
