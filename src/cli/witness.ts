import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { USAGE_EXIT_CODE } from "../verify/index.js";
import { startWitness } from "../witness/server.js";
import { WitnessState } from "../witness/state.js";
import type { Command } from "./command.js";

const options = {
  dir: { type: "string" },
  name: { type: "string" },
  log: { type: "string", multiple: true },
  "logs-file": { type: "string" },
  host: { type: "string" },
  port: { type: "string" },
  "key-type": { type: "string" },
} as const;

/**
 * The witness's default port: not the conserver webhook's (8090), since the README keeps a witness
 * running beside `conserver run`.
 */
export const WITNESS_DEFAULT_PORT = 8091;

const USAGE = `usage: archivist witness --dir <state dir> --name <witness name> (--log <log vkey>)… [--logs-file f] [--host h] [--port p (default ${WITNESS_DEFAULT_PORT})] [--key-type ed25519|ml-dsa-44]`;

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
  usage: `${USAGE}

Serves POST /add-checkpoint (C2SP tlog-witness): cosigns a checkpoint only if it is consistent
with the last one it cosigned for that origin (its state survives restarts, in --dir), and
GET /<sha256(origin)>/checkpoint (the monitoring API). --key-type ml-dsa-44 cosigns with a
post-quantum ML-DSA-44 key (C2SP tlog-cosignature, type 0x06) instead of Ed25519.`,
  async run(args) {
    const { values } = parseArgs({ args, options, strict: true });
    const keyType = values["key-type"] ?? "ed25519";
    const port = Number(values.port ?? WITNESS_DEFAULT_PORT);
    if (
      !values.dir ||
      !values.name ||
      (keyType !== "ed25519" && keyType !== "ml-dsa-44") ||
      !Number.isInteger(port) ||
      port < 0 ||
      port > 65535
    ) {
      process.stderr.write(`${USAGE}\n`);
      return USAGE_EXIT_CODE;
    }
    const logs = logKeys(values);
    // Logs on stderr: stdout carries only the service's ARCHIVIST_WITNESSES entry, for scripts.
    const log = pino(
      { level: process.env.LOG_LEVEL || "info", base: { service: "witness" } },
      pino.destination(2),
    );
    const w = await startWitness(
      { name: values.name, state: new WitnessState(values.dir), logs, log, keyType },
      { host: values.host ?? "127.0.0.1", port },
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
