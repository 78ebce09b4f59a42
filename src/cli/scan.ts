import { Command as Cli } from "commander";
import { openContext } from "../server.js";
import { scanBatch } from "../workers/scanner.js";
import type { Exit } from "./command.js";
import { declared } from "./declare.js";
import { configFromOptions, withConfigFlags } from "./serve.js";

export const scanCommand = declared((exit: Exit) =>
  withConfigFlags(
    new Cli("scan").description(
      "Scan every blob not yet scanned, now. With PGlite, run it while the service is stopped.",
    ),
    ["data-dir", "database-url", "blob-store", "clamd-socket", "log-level"],
  ).action(async (values: Record<string, unknown>) => {
    const ctx = await openContext(configFromOptions(values));
    try {
      await scanBatch(ctx);
      exit(0);
    } finally {
      await ctx.reads.close();
      await ctx.standby?.close();
      await ctx.logGuard.shared?.heads.close();
      await ctx.db.close();
    }
  }),
);
