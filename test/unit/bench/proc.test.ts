import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { OwnCpu } from "../../../bench/proc.js";

// A process that burns `cpu` seconds of its own CPU (by its own clock, not the wall's) whenever it
// reads a line, says "burnt", and on "spawn" starts a child of its own that does the same once.
const BURNER = `
const burn = (s) => { const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1e6 < s) {} };
let child;
process.stdin.setEncoding("utf8").on("data", (d) => {
  for (const line of d.split("\\n").filter(Boolean)) {
    if (line === "spawn") {
      child = require("node:child_process").spawn(process.execPath, ["-e", "const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1e6 < 0.3) {} console.log('burnt'); const p = process.ppid; setInterval(() => { if (process.ppid !== p) process.exit(0); }, 100);"], { stdio: ["ignore", "inherit", "inherit"] });
    } else { burn(Number(line)); console.log("burnt"); }
  }
});
`;

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) c.kill("SIGKILL");
});

function burner(...args: string[]): { child: ChildProcess; next(): Promise<void> } {
  const child = spawn(process.execPath, ["-e", BURNER, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  started.push(child);
  const waiting: Array<() => void> = [];
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    for (const _ of d.split("\n").filter((l) => l === "burnt")) waiting.shift()?.();
  });
  return { child, next: () => new Promise<void>((r) => waiting.push(r)) };
}

function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** Waits for `own` to have counted at least `s` seconds (a condition, not a clock: 60 s is a hang). */
async function until(own: OwnCpu, s: number): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const now = own.seconds() ?? 0;
    if (now >= s) return now;
    await new Promise((r) => setTimeout(r, 100));
  }
  return own.seconds() ?? 0;
}

describe.runIf(process.platform === "linux")("OwnCpu: one deployment's own processes", () => {
  it("counts a process from its CPU at the start, and a child born since from zero", async () => {
    const root = burner();
    const burnt = root.next();
    root.child.stdin?.write("0.3\n");
    await burnt;
    const pid = root.child.pid as number;
    const own = await OwnCpu.start({ rootPids: () => [pid] }, 20);
    try {
      const before = cpuOf(pid);
      // The child burns 0.3 s and says so on the shared stdout.
      const childBurnt = root.next();
      root.child.stdin?.write("spawn\n");
      await childBurnt;
      const counted = await until(own, 0.29);
      // All of the child's 0.3 s, none of the root's 0.3 s before the start.
      expect(counted).toBeGreaterThanOrEqual(0.29);
      // Counting the root from zero would add its `before` (0.3 s burnt and more) to the child's.
      expect(counted).toBeLessThan(before + 0.29);
    } finally {
      await own.stop();
    }
  });

  it("counts a database's backends found under its name, one listed only after it worked from zero", async () => {
    const backend = burner("archivist_bench_test_db");
    const pid = backend.child.pid as number;
    let listed = false;
    const own = await OwnCpu.start(
      {
        rootPids: () => [],
        database: { name: "archivist_bench_test_db", pids: async () => (listed ? [pid] : []) },
      },
      20,
    );
    try {
      const burnt = backend.next();
      backend.child.stdin?.write("0.3\n");
      await burnt;
      // A backend that did its work between two listings and is seen only now: born since the start.
      listed = true;
      expect(await until(own, 0.29)).toBeGreaterThanOrEqual(0.29);
    } finally {
      await own.stop();
    }
  });

  it("counts a parallel worker of its own backend, whose title names no database", async () => {
    // PostgreSQL titles a parallel worker "postgres: 15/main: parallel worker for PID <leader>" and
    // lists it under its leader's database: a parallel plan once made every later round unmeasured.
    const leader = burner("archivist_bench_test_db");
    const leaderPid = leader.child.pid as number;
    const worker = burner("postgres:", "15/main:", "parallel", "worker", "for", "PID", String(leaderPid));
    const workerPid = worker.child.pid as number;
    const own = await OwnCpu.start(
      {
        rootPids: () => [],
        database: { name: "archivist_bench_test_db", pids: async () => [leaderPid, workerPid] },
      },
      20,
    );
    try {
      const burnt = worker.next();
      worker.child.stdin?.write("0.3\n");
      await burnt;
      expect(await until(own, 0.29)).toBeGreaterThanOrEqual(0.29);
    } finally {
      await own.stop();
    }
    // A worker whose leader is not one of the database's backends is a stranger's.
    const other = burner("postgres:", "15/main:", "parallel", "worker", "for", "PID", "1");
    const stranger = await OwnCpu.start({
      rootPids: () => [],
      database: { name: "archivist_bench_test_db", pids: async () => [other.child.pid as number] },
    });
    expect(stranger.seconds()).toBeUndefined();
    await stranger.stop();
  });

  it("refuses a listed backend that is not one of this machine's", async () => {
    // A listed pid that is some other process here: not this machine's PostgreSQL, no number.
    const stranger = await OwnCpu.start({
      rootPids: () => [],
      database: { name: "archivist_bench_test_db", pids: async () => [process.pid] },
    });
    expect(stranger.seconds()).toBeUndefined();
    await stranger.stop();
    // Listed backends none of which this machine has: the database runs elsewhere.
    const elsewhere = await OwnCpu.start({
      rootPids: () => [],
      database: { name: "archivist_bench_test_db", pids: async () => [4_194_000] },
    });
    expect(elsewhere.seconds()).toBeUndefined();
    await elsewhere.stop();
  });
});
