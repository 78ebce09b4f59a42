import type { Command as Cli } from "commander";
import { benchCommand } from "./bench.js";
import { consentCommand } from "./consent.js";
import { conserverCommand } from "./conserver.js";
import { exportCommand } from "./export.js";
import { indexCommand } from "./index-command.js";
import { keysCommand } from "./keys.js";
import { logCommand } from "./log.js";
import { mirrorCommand } from "./mirror.js";
import { partitionCommand } from "./partition.js";
import { processorsCommand } from "./processors.js";
import { scanCommand } from "./scan.js";
import { serveCommand, workerCommand } from "./serve.js";
import { verifyPublicCommand } from "./verify-public.js";
import { witnessCommand } from "./witness.js";

/** Sets the exit code a command's action reached (nothing: a long-running command). */
export type Exit = (code: number | undefined) => void;

/** A CLI command: returns the exit code, or nothing for a long-running one. */
export interface Command {
  summary: string;
  /**
   * The command declared for commander (arguments, options, help, action). Absent: the command
   * parses its own arguments and answers its own `--help` (bench, conserver).
   */
  declare?(exit: Exit): Cli;
  /** For a command that parses its own arguments: what `--help` prints (stdout, exit 0). */
  usage?: string;
  run(args: string[]): Promise<number | undefined>;
}

export const commands: Record<string, Command> = {
  serve: serveCommand,
  worker: workerCommand,
  scan: scanCommand,
  verify: verifyPublicCommand,
  export: exportCommand,
  keys: keysCommand,
  log: logCommand,
  consent: consentCommand,
  processors: processorsCommand,
  bench: benchCommand,
  conserver: conserverCommand,
  mirror: mirrorCommand,
  index: indexCommand,
  partition: partitionCommand,
  witness: witnessCommand,
};
