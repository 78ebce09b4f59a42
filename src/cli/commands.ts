import { benchCommand } from "./bench.js";
import { conserverCommand } from "./conserver.js";
import { mirrorCommand } from "./mirror.js";
import { scanCommand } from "./scan.js";
import { serveCommand, workerCommand } from "./serve.js";
import { verifyPublicCommand } from "./verify-public.js";
import { witnessCommand } from "./witness.js";

/** A CLI command: returns the exit code, or nothing for a long-running one. */
export interface Command {
  summary: string;
  run(args: string[]): Promise<number | undefined>;
}

export const commands: Record<string, Command> = {
  serve: serveCommand,
  worker: workerCommand,
  scan: scanCommand,
  verify: verifyPublicCommand,
  bench: benchCommand,
  conserver: conserverCommand,
  mirror: mirrorCommand,
  witness: witnessCommand,
};
