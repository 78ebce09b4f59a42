import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

/** A service started as users do, in its own process (so a test can SIGKILL it). */
export interface ChildService {
  url: string;
  proc: ChildProcess;
  /** Everything it wrote to stdout (its pino log lines) and stderr so far. */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Runs `archivist <command>` from the sources (tsx) with the given environment; resolves when it answers /readyz. */
export async function startChild(
  command: "serve" | "worker",
  env: Record<string, string>,
  port: number,
  // A loaded machine (the full suite on two cores) can take longer to compile and start it.
  readyWithinMs = 60_000,
  /** Modules to preload (`node --import`), e.g. a test's fault injection. */
  preload: string[] = [],
): Promise<ChildService> {
  // Without DATA_DIR the service would take ./data: the repository's, where a reader keeps the
  // service's database and credentials. Tests never touch a user's files.
  if (!env.DATA_DIR)
    throw new Error("startChild: give the service a DATA_DIR of the test's own (a temporary folder)");
  const imports = ["tsx", ...preload].flatMap((m) => ["--import", m]);
  // Vitest puts Vite's BASE_URL ("/") in the environment: a service given it would name its logs'
  // origins without a host. The child is reached where it listens unless the test says otherwise.
  const { BASE_URL: _vite, ...inherited } = process.env;
  const proc = spawn(process.execPath, [...imports, MAIN, command], {
    env: { ...inherited, LOG_LEVEL: "warn", HOST: "127.0.0.1", PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  proc.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  proc.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  const end = Date.now() + readyWithinMs;
  if (command === "serve") {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`service exited early: ${stderr}`);
      const ok = await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > end)
        throw new Error(`service did not become ready: ${(stdout + stderr).slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url,
    proc,
    output: () => stdout + stderr,
    async kill(signal = "SIGKILL") {
      if (proc.exitCode === null) proc.kill(signal);
      await exited;
    },
  };
}
