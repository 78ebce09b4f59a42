import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./service.js";

/** HAProxy in front of API processes: one address, requests spread round-robin. */
export interface LoadBalancer {
  origin: string;
  pid: number;
  stop(): Promise<void>;
}

/** True when Debian's haproxy is installed (`apt-get install haproxy`). */
export function haproxyInstalled(): boolean {
  try {
    execFileSync("haproxy", ["-v"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts HAProxy on a free loopback port, in the foreground (`-db`), balancing HTTP requests
 * round-robin over `origins` with keep-alive to each; stopped by `stop`.
 */
export async function startHaproxy(origins: string[]): Promise<LoadBalancer> {
  const dir = mkdtempSync(join(tmpdir(), "archivist-haproxy-"));
  const port = await freePort();
  const servers = origins.map((o, i) => `  server api${i + 1} ${new URL(o).host} check inter 1s`).join("\n");
  writeFileSync(
    join(dir, "haproxy.cfg"),
    `global
  maxconn 8192
defaults
  mode http
  timeout connect 5s
  timeout client 120s
  timeout server 120s
  option http-keep-alive
frontend archivist
  bind 127.0.0.1:${port}
  default_backend apis
backend apis
  balance roundrobin
  http-reuse always
${servers}
`,
  );
  const child: ChildProcess = spawn("haproxy", ["-db", "-f", join(dir, "haproxy.cfg")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err = (err + d).slice(-2000);
  });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}: ${err}`);
    try {
      const res = await fetch(`${origin}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`haproxy did not answer on ${origin}: ${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    origin,
    pid: child.pid ?? 0,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
