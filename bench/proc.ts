import { readdirSync, readFileSync, writeFileSync } from "node:fs";

// USER_HZ is 100 on every Linux ABI Node supports; /proc times are in these ticks.
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat, and when it
 * started (in ticks since boot: a pid reused by another process reads another start).
 */
function procStat(pid: number): { cpu: number; started: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces and parentheses: count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name;
    // starttime is field 22, 20 after it.
    return {
      cpu: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
      started: Number(fields[19]),
    };
  } catch {
    return undefined;
  }
}

function cpuSeconds(pid: number): number | undefined {
  return procStat(pid)?.cpu;
}

/** Peak resident set size (VmHWM) of a process in MiB. */
function peakRssMiB(pid: number): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Resets VmHWM (writing 5 to clear_refs) so the next peak is this phase's; false if not allowed. */
function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** Busy CPU seconds of the whole machine (all cores), from the first line of /proc/stat. */
function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    const [, ...ticks] = line.trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal: busy is everything but idle and iowait.
    const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
    return (total - (ticks[3] ?? 0) - (ticks[4] ?? 0)) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** CPU and memory of a process over one phase. */
export interface ProcUsage {
  /** Cores the process kept busy on average (1.0 = one core fully used). */
  cores: number | undefined;
  /** Cores busy machine-wide: the server, the load generator, PostgreSQL, anything else. */
  machineCores: number | undefined;
  /**
   * Cores one deployment's own processes kept busy (`OwnCpu`: the service, its children and its
   * database's backends), when the phase was metered with them.
   */
  ownCores?: number | undefined;
  peakRssMiB: number | undefined;
}

/** Starts measuring a process; call the returned function at the end of the phase. */
export function meter(pid: number, own?: OwnCpu): () => ProcUsage {
  const cpu0 = cpuSeconds(pid);
  const all0 = machineBusySeconds();
  const own0 = own?.seconds();
  const t0 = performance.now();
  resetPeakRss(pid);
  return () => {
    const seconds = (performance.now() - t0) / 1000;
    const rate = (a: number | undefined, b: number | undefined) =>
      a !== undefined && b !== undefined && seconds > 0 ? (b - a) / seconds : undefined;
    return {
      cores: rate(cpu0, cpuSeconds(pid)),
      machineCores: rate(all0, machineBusySeconds()),
      ...(own ? { ownCores: rate(own0, own.seconds()) } : {}),
      peakRssMiB: peakRssMiB(pid),
    };
  };
}

/** The children of a process (every thread's), from /proc/<pid>/task/<tid>/children. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** True when /proc/<pid>/cmdline names `word` (a PostgreSQL backend's title names its database). */
function cmdlineWords(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split(/[\s\0]+/);
  } catch {
    return undefined;
  }
}

/**
 * The backend a PostgreSQL parallel worker works for, from its title ("… parallel worker for PID
 * n"), which names no database: pg_stat_activity lists it under its leader's.
 */
function parallelLeader(words: readonly string[]): number | undefined {
  const at = words.indexOf("parallel");
  if (at < 0 || words[at + 1] !== "worker" || words[at + 2] !== "for" || words[at + 3] !== "PID")
    return undefined;
  const leader = Number(words[at + 4]);
  return Number.isSafeInteger(leader) ? leader : undefined;
}

/** What `OwnCpu` reads a deployment's processes from. */
export interface OwnProcesses {
  /** The service's processes now (none when it is not running); their children count too. */
  rootPids(): number[];
  /**
   * The database's server processes now serving this deployment (PostgreSQL: the backends of
   * its database), with the name their process title carries; undefined on an in-process
   * database (PGlite), whose work is the service's own.
   */
  database?: { name: string; pids(): Promise<number[]> };
}

/** A process's CPU as `OwnCpu` counts it: from `base` (its CPU when first seen) to `last`. */
interface Tracked {
  started: number;
  base: number;
  last: number;
}

/**
 * CPU seconds one deployment's processes have used since `start`: the service and its children,
 * and on PostgreSQL the backends serving its database. Two deployments measured at once on one
 * machine each get their own share, which the machine-wide /proc/stat cannot split.
 *
 * The approximation: the process set is listed every `intervalMs` (the database's from
 * pg_stat_activity), and each listed process's /proc/<pid>/stat read at every listing and at
 * every `seconds()`. A process first seen after the start counts from zero (it was born since);
 * one seen at the start counts from its CPU then. A process that exits loses what it used since
 * its last reading: at most `intervalMs` of one backend, and nothing for the pools' long-lived
 * connections. PostgreSQL's shared processes (WAL writer, checkpointer, background writer) and
 * Redis serve every database at once and are nobody's here; autovacuum workers name the database
 * they clean and count for it. Backends are recognised by their process title naming the
 * database: a PostgreSQL on another host or in another pid namespace is not this machine's
 * /proc, and then `seconds()` is undefined rather than a stranger's CPU.
 */
export class OwnCpu {
  private readonly tracked = new Map<number, Tracked>();
  /** CPU of processes that have exited and whose pid another process has taken since. */
  private retired = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> = Promise.resolve();
  /** Database backends found in this machine's /proc under their database's name. */
  private backendsFound = 0;
  /** Listed backends not found in /proc (gone since the listing, or not this machine's). */
  private backendsMissing = 0;
  /** True once a listed backend's pid was another process here: not this machine's PostgreSQL. */
  private strangers = false;

  private constructor(private readonly processes: OwnProcesses) {}

  /** Starts counting (the processes alive now count from their present CPU). */
  static async start(processes: OwnProcesses, intervalMs = 100): Promise<OwnCpu> {
    const own = new OwnCpu(processes);
    await own.poll(false);
    own.timer = setInterval(() => {
      own.polling = own.polling.then(() => own.poll(true)).catch(() => undefined);
    }, intervalMs);
    own.timer.unref();
    return own;
  }

  /** Lists the processes; `bornSince`: a process not tracked yet started after `start`. */
  private async poll(bornSince: boolean): Promise<void> {
    const pids: number[] = [];
    for (let queue = this.processes.rootPids(); queue.length; ) {
      const pid = queue.shift() as number;
      pids.push(pid);
      queue = [...queue, ...childrenOf(pid)];
    }
    const db = this.processes.database;
    if (db) {
      const listed = await db.pids();
      for (const pid of listed) {
        const words = this.tracked.has(pid) ? undefined : cmdlineWords(pid);
        if (!words) {
          if (this.tracked.has(pid)) pids.push(pid);
          else this.backendsMissing++;
          continue;
        }
        // A parallel worker of one of the database's listed backends does that backend's work:
        // counted as it is (a parallel plan once made every later reading a stranger's).
        const leader = parallelLeader(words);
        if (words.includes(db.name) || (leader !== undefined && listed.includes(leader))) {
          pids.push(pid);
          this.backendsFound++;
        } else this.strangers = true;
      }
    }
    for (const pid of pids) {
      const now = procStat(pid);
      if (now === undefined || this.read(pid, now)) continue;
      this.tracked.set(pid, { started: now.started, base: bornSince ? 0 : now.cpu, last: now.cpu });
    }
  }

  /** Updates a tracked process from a reading; false when `pid` is not (or no longer) the one tracked. */
  private read(pid: number, now: { cpu: number; started: number }): boolean {
    const t = this.tracked.get(pid);
    if (!t) return false;
    if (now.started === t.started) {
      t.last = now.cpu;
      return true;
    }
    // The process exited and its pid is another's now: keep what it used, stop reading the pid.
    this.retired += t.last - t.base;
    this.tracked.delete(pid);
    return false;
  }

  /** CPU seconds used since `start` (reading every tracked process now); undefined if unmeasurable. */
  seconds(): number | undefined {
    // Backends listed but never found here: the database runs elsewhere, its CPU is not readable.
    if (this.strangers || (this.backendsMissing > 0 && this.backendsFound === 0)) return undefined;
    for (const pid of [...this.tracked.keys()]) {
      const now = procStat(pid);
      if (now !== undefined) this.read(pid, now);
    }
    let total = this.retired;
    for (const t of this.tracked.values()) total += t.last - t.base;
    return total;
  }

  /** Stops listing (after the last phase's reading). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
  }
}
