import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FreshDatabase, freshDatabase } from "./database.js";
import { fetchToken } from "./http.js";
import type { OwnProcesses } from "./proc.js";

// BENCH_SERVER_CLI: another tree's built CLI (`…/dist/src/cli/main.js`), so that two trees' services
// are measured under one load generator (a before-and-after without the bench's own changes).
export const CLI =
  process.env.BENCH_SERVER_CLI || fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
/**
 * As the service is started in production (`npm start`, the bin's shebang, the Dockerfile): a
 * larger young generation. Each request allocates a few hundred kB that die young; with V8's
 * default 16 MiB semi-space, scavenges were 13 % of the service's busy time under the conserver
 * load, and at 64 MiB its CPU per vCon fell ~10 % (docs/performance.md).
 */
const SERVICE_NODE_ARGS = ["--max-semi-space-size=64"];
const live = new Set<Deployment>();

/** How a deployment's service process is run, when not as the run's own. */
export interface ServiceRuntime {
  /** Another tree's built CLI (`…/dist/src/cli/main.js`) to run instead of the run's own. */
  cli?: string;
  /** Node arguments after the production ones (`pair`: one side with a flag, one without). */
  nodeArgs?: readonly string[];
}

// Ports this process has handed out: the kernel may offer a just-closed ephemeral port again, and
// two deployments started together (`pair`) then race for it (seen: EADDRINUSE on one side).
const handedOut = new Set<number>();

export async function freePort(): Promise<number> {
  for (;;) {
    const port = await ephemeralPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

function ephemeralPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One service deployment for a scenario: a temp DATA_DIR, a bootstrap file with known
 * credentials, a fresh PostgreSQL database when asked, and the `archivist serve` process,
 * started exactly as users start it (so the numbers include everything users pay for).
 */
export class Deployment {
  readonly dataDir = mkdtempSync(join(tmpdir(), "archivist-bench-"));
  readonly clientId: string;
  readonly clientSecret: string;
  origin = "";
  private child: ChildProcess | undefined;
  /** Processes started beside the service (`startExtra`). */
  private readonly extras: ChildProcess[] = [];
  private tail: string[] = [];
  private forwarded = 0;
  private cachedToken: string | undefined;

  private constructor(
    readonly db: FreshDatabase | undefined,
    private readonly env: Record<string, string>,
    template: Deployment | undefined,
    private readonly runtime: ServiceRuntime = {},
  ) {
    if (template) {
      // A copy of a provisioned, stopped deployment: its keys, its tenancy, its bootstrap file.
      cpSync(template.dataDir, this.dataDir, { recursive: true });
      this.clientId = template.clientId;
      this.clientSecret = template.clientSecret;
      return;
    }
    this.clientId = randomUUID();
    this.clientSecret = `bench-${randomUUID()}`;
    const bootstrap = { tenancies: [this.tenancy()] };
    writeFileSync(join(this.dataDir, "bootstrap-in.json"), JSON.stringify(bootstrap));
  }

  /** Makes a deployment (and its database) and starts its service. */
  static async create(opts: {
    databaseUrl: string | undefined;
    redisUrl: string | undefined;
    /** Settings of this deployment only (e.g. its witnesses). */
    env?: Record<string, string>;
    /**
     * A stopped deployment to start from (its data directory and database copied): no database
     * initialisation or migrations, so a fresh service per scenario costs a second, not 5–25.
     */
    template?: Deployment;
    /** Another tree's built CLI, or other node arguments, to run the service with. */
    runtime?: ServiceRuntime;
  }): Promise<Deployment> {
    const db = opts.databaseUrl ? await freshDatabase(opts.databaseUrl, opts.template?.db?.name) : undefined;
    const env: Record<string, string> = {
      ...(opts.redisUrl ? { REDIS_URL: opts.redisUrl } : {}),
      ...opts.env,
    };
    const d = new Deployment(db, env, opts.template, opts.runtime);
    live.add(d);
    try {
      await d.start();
    } catch (err) {
      await d.dispose();
      throw err;
    }
    return d;
  }

  private tenancy() {
    return {
      display_name: "Bench",
      owner: { client_id: this.clientId, client_secret: this.clientSecret },
      members: [],
    };
  }

  /** The service process id, for CPU and memory readings. */
  get pid(): number {
    return this.child?.pid ?? 0;
  }

  /**
   * This deployment's processes for `OwnCpu`: the service and any extra API or worker process
   * (with their children), and on PostgreSQL the backends of its database. On PGlite the
   * database runs inside the service.
   */
  ownProcesses(): OwnProcesses {
    const db = this.db;
    return {
      rootPids: () => [this.child, ...this.extras].flatMap((c) => (c?.pid ? [c.pid] : [])),
      ...(db ? { database: { name: db.name, pids: () => db.backendPids() } } : {}),
    };
  }

  /** True when the database is the embedded PGlite (in DATA_DIR/pgdata). */
  get embedded(): boolean {
    return this.db === undefined;
  }

  /** Restarts the service if its process has gone (a scenario may have crashed it). */
  async ensureRunning(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) await this.start();
  }

  /** Starts `archivist serve` and waits for /readyz. */
  async start(): Promise<void> {
    const { child, origin } = await this.spawnCli(["serve"]);
    this.child = child;
    this.origin = origin;
    this.cachedToken = undefined;
    await this.waitReady(child, origin);
    await this.waitProvisioned();
  }

  /**
   * Another process on this deployment's database, as a scaled-out deployment runs them: an API
   * only (`serve --no-workers`, ready when /readyz answers) or the workers only (`worker`).
   * Stopped with the deployment.
   */
  async startExtra(
    role: "api" | "worker",
    env: Record<string, string> = {},
  ): Promise<{ pid: number; origin: string }> {
    // One public name for every process, as behind a load balancer: tokens name it as their issuer.
    const { child, origin } = await this.spawnCli(role === "api" ? ["serve", "--no-workers"] : ["worker"], {
      BASE_URL: this.origin,
      ...env,
    });
    this.extras.push(child);
    if (role === "api") await this.waitReady(child, origin);
    return { pid: child.pid ?? 0, origin };
  }

  private async spawnCli(
    args: string[],
    extraEnv: Record<string, string> = {},
  ): Promise<{ child: ChildProcess; origin: string }> {
    const port = await freePort();
    // Only what this deployment names reaches the service: not the admin DATABASE_URL of the run.
    const { DATABASE_URL: _db, REDIS_URL: _redis, ...inherited } = process.env;
    const env: Record<string, string | undefined> = {
      ...inherited,
      ...(this.db ? { DATABASE_URL: this.db.url } : {}),
      ...this.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      DATA_DIR: this.dataDir,
      ARCHIVIST_BOOTSTRAP_FILE: join(this.dataDir, "bootstrap-in.json"),
      LOG_LEVEL: "warn",
      ...extraEnv,
    };
    // BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the service under load.
    const nodeArgs = [
      ...SERVICE_NODE_ARGS,
      ...(process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean),
      ...(this.runtime.nodeArgs ?? []),
    ];
    const child = spawn(process.execPath, [...nodeArgs, this.runtime.cli ?? CLI, ...args], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.setEncoding("utf8").on("data", (d: string) => this.output(d));
    child.stderr?.setEncoding("utf8").on("data", (d: string) => this.output(d));
    return { child, origin: `http://127.0.0.1:${port}` };
  }

  // Server logs go to our stderr (a few lines only: a saturated server can warn per request).
  private output(chunk: string): void {
    for (const line of chunk.split("\n").filter(Boolean)) {
      this.tail.push(line);
      if (this.tail.length > 40) this.tail.shift();
      if (this.forwarded++ < 10) process.stderr.write(`  [server] ${line.slice(0, 300)}\n`);
      else if (this.forwarded === 11) process.stderr.write("  [server] (more log lines suppressed)\n");
    }
  }

  private firstError(): string {
    return this.tail.find((l) => /error/i.test(l))?.slice(0, 200) ?? "";
  }

  private async waitReady(child: ChildProcess, origin: string): Promise<void> {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null)
        throw new Error(
          `service exited with ${child.exitCode}: ${this.firstError()}\n${this.tail.join("\n")}`,
        );
      try {
        const res = await fetch(`${origin}/readyz`);
        await res.arrayBuffer();
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`service not ready after 120 s:\n${this.tail.join("\n")}`);
  }

  // /readyz may answer before the bootstrap file is applied: the first token is the real "ready".
  private async waitProvisioned(): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        this.cachedToken = await fetchToken(this.origin, this.clientId, this.clientSecret);
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
      }
      await sleep(200);
    }
  }

  /** A bearer token of the tenancy's owner application (cached for the process's lifetime). */
  async token(): Promise<string> {
    this.cachedToken ??= await fetchToken(this.origin, this.clientId, this.clientSecret);
    return this.cachedToken;
  }

  /** Stops the service (and any extra process) gracefully (SIGTERM), killing what does not exit within 20 s. */
  async stop(): Promise<void> {
    const children = [this.child, ...this.extras.splice(0)];
    this.child = undefined;
    await Promise.all(children.map((c) => (c ? stopChild(c) : undefined)));
  }

  /** Stops only the main service process (its extras keep running). */
  async stopMain(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) await stopChild(child);
  }

  /** Stops the service, drops its database and deletes its data directory. */
  async dispose(): Promise<void> {
    live.delete(this);
    await this.stop();
    await this.db?.drop().catch((err: unknown) => {
      process.stderr.write(`bench: could not drop database: ${(err as Error).message}\n`);
    });
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(timer);
}

/** Disposes every deployment still alive (on an error or a signal). */
export async function disposeAll(): Promise<void> {
  await Promise.all([...live].map((d) => d.dispose()));
}
