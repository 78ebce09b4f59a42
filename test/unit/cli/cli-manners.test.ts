import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commands } from "../../../src/cli/commands.js";
import { freePort } from "../../helpers/ports.js";

const MAIN = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));
const PACKAGE = fileURLToPath(new URL("../../../package.json", import.meta.url));

/** The CLI as a real process (exit codes, pipes and open handles are what is tested). */
function run(args: string[], env: Record<string, string> = {}, timeout = 120_000) {
  return spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout,
  });
}

// Every case starts real processes (tsx compiles on each start): slow on a shared machine.
const SLOW = 240_000;

describe("archivist's command-line manners", { timeout: SLOW }, () => {
  it("`archivist help <command>` prints the command's own help, never an empty usage line", () => {
    for (const name of Object.keys(commands)) {
      const r = run(["help", name]);
      expect(r.status, `${name}: ${r.stderr}`).toBe(0);
      expect(r.stdout, name).not.toMatch(/^Usage: archivist \S+ *\n/);
      expect(r.stdout, name).toMatch(new RegExp(`usage: archivist ${name}`, "i"));
      expect(r.stdout.split("\n").length, name).toBeGreaterThan(2);
    }
  });

  it("lists only the flags a command uses", () => {
    const worker = run(["worker", "--help"]).stdout;
    const scan = run(["scan", "--help"]).stdout;
    for (const apiOnly of ["--port", "--host", "--rate-limit-rps", "--request-timeout-ms"]) {
      expect(worker).not.toContain(apiOnly);
      expect(scan).not.toContain(apiOnly);
    }
    expect(worker).toContain("--database-url");
    expect(scan).toContain("--clamd-socket");
    expect(scan).not.toContain("--seal-interval-ms");
    expect(run(["serve", "--help"]).stdout).toContain("--port");
  });

  it("answers --version with the package's version", () => {
    const r = run(["--version"]);
    expect(r.status).toBe(0);
    const { version } = JSON.parse(spawnSync("cat", [PACKAGE], { encoding: "utf8" }).stdout) as {
      version: string;
    };
    expect(r.stdout.trim()).toBe(version);
  });

  it("ends quietly when its reader closes the pipe (`archivist help verify | head -1`)", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, "help", "verify"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d) => {
      err += String(d);
    });
    // The reader takes nothing and goes away: every write after that meets a closed pipe.
    child.stdout.destroy();
    const code = await new Promise<number | null>((r) => child.on("close", (c) => r(c)));
    expect(err).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(0);
  });
});

describe("fatal errors: one clear line, a non-zero exit", { timeout: SLOW }, () => {
  let busy: Server;
  let port: number;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "archivist-cli-"));
    busy = createServer();
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", () => r()));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => busy.close());

  const config = (webhookPort: number) => {
    const file = join(dir, `conserver-${webhookPort}.yml`);
    writeFileSync(
      file,
      `links:
  a: {module: archivist, options: {vcon_operation: vcon_created, backend: {url: "http://127.0.0.1:1", client_id: x, client_secret: "\${NOT_SET_SECRET}"}}}
chains:
  main: {links: [a], ingress_lists: [in], egress_lists: [], enabled: 1}
delivery: {queue: q, prefix: p}
webhook: {listen: "127.0.0.1:${webhookPort}"}
`,
    );
    return file;
  };

  it("`serve` on a port in use", () => {
    const r = run(["serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", join(dir, "d")]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^archivist serve: .*EADDRINUSE/)]);
  });

  it("`conserver run` with Redis down, and with its webhook's port in use", async () => {
    const deadRedis = `redis://127.0.0.1:${await freePort()}`;
    const down = run(["conserver", "run", "--config", config(await freePort()), "--redis-url", deadRedis], {
      NOT_SET_SECRET: "s",
    });
    expect(down.status).toBe(1);
    expect(down.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^archivist conserver: Redis at redis:\/\/127\.0\.0\.1:\d+ is not reachable \(ECONNREFUSED\)/,
      ),
    ]);
    const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
    const inUse = run(["conserver", "run", "--config", config(port), "--redis-url", redisUrl], {
      NOT_SET_SECRET: "s",
    });
    expect(inUse.status, inUse.stderr).toBe(1);
    expect(inUse.stderr).toMatch(/^archivist conserver: .*EADDRINUSE/m);
    expect(inUse.stderr).not.toMatch(/\n\s+at /);
  });

  it("`conserver dlq list` reads its queue without the links' secrets, and says Redis is down in one line", async () => {
    const deadRedis = `redis://127.0.0.1:${await freePort()}`;
    const r = run(["conserver", "dlq", "list", "--config", config(1), "--redis-url", deadRedis]);
    expect(r.status).toBe(1);
    expect(r.stderr).not.toMatch(/NOT_SET_SECRET/);
    expect(r.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^archivist conserver: Redis at .* is not reachable/),
    ]);
  });
});
