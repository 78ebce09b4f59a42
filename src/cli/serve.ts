import { parseArgs } from "node:util";
import { flagNames, loadConfig } from "../config.js";
import { startService } from "../server.js";
import type { Command } from "./commands.js";

/** The config of a command: environment, overridden by its flags. */
export function configFromArgs(args: string[], extra: Record<string, string>) {
  const options = Object.fromEntries(Object.keys(flagNames).map((f) => [f, { type: "string" as const }]));
  const { values } = parseArgs({
    args,
    options: { ...options, "no-workers": { type: "boolean" } },
    strict: true,
  });
  const overrides: Record<string, string> = { ...extra };
  for (const [flag, env] of Object.entries(flagNames)) {
    const v = (values as Record<string, string | boolean | undefined>)[flag];
    if (typeof v === "string") overrides[env] = v;
  }
  if (values["no-workers"]) overrides.ARCHIVIST_NO_WORKERS = "true";
  return loadConfig(process.env, overrides);
}

async function runUntilSignal(
  args: string[],
  extra: Record<string, string>,
  api: boolean,
): Promise<undefined> {
  const service = await startService(configFromArgs(args, extra), { api });
  const stop = (signal: string) => {
    service.ctx.log.info({ signal }, "shutting down");
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        service.ctx.log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  return undefined;
}

export const serveCommand: Command = {
  summary: "serve the API and run the workers (--no-workers: API only)",
  run: (args) => runUntilSignal(args, {}, true),
};

export const workerCommand: Command = {
  summary: "run only the commit, seal, anchor and scan workers (PostgreSQL scale-out)",
  run: (args) => runUntilSignal(args, {}, false),
};
