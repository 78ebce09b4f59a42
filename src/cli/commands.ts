import { benchCommand } from "./bench.js";
import type { Command } from "./command.js";
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
