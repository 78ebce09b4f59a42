import { openContext } from "../server.js";
import { scanBatch } from "../workers/scanner.js";
import type { Command } from "./commands.js";
import { configFromArgs } from "./serve.js";

export const scanCommand: Command = {
  summary: "scan every blob not yet scanned, now (the scanner otherwise runs daily)",
  async run(args) {
    const ctx = await openContext(configFromArgs(args, {}));
    try {
      await scanBatch(ctx);
      return 0;
    } finally {
      await ctx.db.close();
    }
  },
};
