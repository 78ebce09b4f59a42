import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { startWitness } from "../witness/server.js";
import { WitnessState } from "../witness/state.js";
import type { Command } from "./commands.js";

const options = {
  dir: { type: "string" },
  name: { type: "string" },
  log: { type: "string", multiple: true },
  "logs-file": { type: "string" },
  host: { type: "string" },
  port: { type: "string" },
} as const;

const USAGE =
  "usage: archivist witness --dir <state dir> --name <witness name> (--log <log vkey>)… [--logs-file f] [--host h] [--port p]";

/** Log vkeys from `--log` and from a file of one vkey a line (# comments). */
function logKeys(values: { log?: string[]; "logs-file"?: string }): string[] {
  const fromFile = values["logs-file"]
    ? readFileSync(values["logs-file"], "utf8")
        .split("\n")
        .map((l) => l.replace(/#.*/, "").trim())
        .filter((l) => l !== "")
    : [];
  return [...(values.log ?? []), ...fromFile];
}

/** `archivist witness`: a C2SP tlog-witness with its own key and state directory. */
export const witnessCommand: Command = {
  summary: "run a C2SP tlog-witness (own key and state in --dir) for the logs given by their vkeys",
  usage: `${USAGE}

Serves POST /add-checkpoint (C2SP tlog-witness): cosigns a checkpoint only if it is consistent
with the last one it cosigned for that origin (its state survives restarts, in --dir).`,
  async run(args) {
    const { values } = parseArgs({ args, options, strict: true });
    if (!values.dir || !values.name) {
      process.stderr.write(`${USAGE}\n`);
      return 2;
    }
    const logs = logKeys(values);
    // Logs on stderr: stdout carries only the service's ARCHIVIST_WITNESSES entry, for scripts.
    const log = pino(
      { level: process.env.LOG_LEVEL || "info", base: { service: "witness" } },
      pino.destination(2),
    );
    const w = await startWitness(
      { name: values.name, state: new WitnessState(values.dir), logs, log },
      { host: values.host ?? "127.0.0.1", port: Number(values.port ?? 8090) },
    );
    // The service's ARCHIVIST_WITNESSES entry for this witness, on stdout for scripts.
    process.stdout.write(`${w.vkey} ${w.url}\n`);
    log.info({ url: w.url, vkey: w.vkey, logs: logs.length }, "witness listening");
    const stop = () => void w.close().then(() => process.exit(0));
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    return undefined;
  },
};
