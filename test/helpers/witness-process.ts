import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ed25519PublicKey, formatVkey } from "../../src/core/log/note-sign.js";
import { COSIGNATURE_V1 } from "../../src/formats/tlog/index.js";
import { until } from "./poll.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

/** An `archivist witness` to be: its folder with a new Ed25519 key, its address and vkey. */
export interface WitnessProcess {
  name: string;
  dir: string;
  port: number;
  url: string;
  vkey: string;
  proc?: ChildProcess;
}

export function prepareWitness(name: string, port: number): WitnessProcess {
  const dir = mkdtempSync(join(tmpdir(), "witness-"));
  const seed = randomBytes(32);
  writeFileSync(join(dir, "key"), `${seed.toString("base64")}\n`, { mode: 0o600 });
  return {
    name,
    dir,
    port,
    url: `http://127.0.0.1:${port}`,
    vkey: formatVkey(name, COSIGNATURE_V1, ed25519PublicKey(new Uint8Array(seed))),
  };
}

/** Runs `archivist witness` of the logs' vkeys in its own process, as an operator would, until it answers. */
export async function runWitness(w: WitnessProcess, logVkey: string, ...moreLogs: string[]): Promise<void> {
  w.proc = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      MAIN,
      "witness",
      "--dir",
      w.dir,
      "--name",
      w.name,
      ...[logVkey, ...moreLogs].flatMap((k) => ["--log", k]),
      "--port",
      String(w.port),
    ],
    { env: { ...process.env, LOG_LEVEL: "warn" }, stdio: ["ignore", "ignore", "inherit"] },
  );
  await until(
    () =>
      fetch(`${w.url}/`).then(
        () => true,
        () => undefined,
      ),
    30_000,
    100,
  );
}

export async function stopWitness(w: WitnessProcess): Promise<void> {
  const p = w.proc;
  if (!p || p.exitCode !== null) return;
  const exited = new Promise((r) => p.once("exit", r));
  p.kill("SIGKILL");
  await exited;
}
