import { readFileSync, writeFileSync } from "node:fs";

// USER_HZ is 100 on every Linux ABI Node supports; /proc times are in these ticks.
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces and parentheses: count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
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
  peakRssMiB: number | undefined;
}

/** Starts measuring a process; call the returned function at the end of the phase. */
export function meter(pid: number): () => ProcUsage {
  const cpu0 = cpuSeconds(pid);
  const all0 = machineBusySeconds();
  const t0 = performance.now();
  resetPeakRss(pid);
  return () => {
    const seconds = (performance.now() - t0) / 1000;
    const rate = (a: number | undefined, b: number | undefined) =>
      a !== undefined && b !== undefined && seconds > 0 ? (b - a) / seconds : undefined;
    return {
      cores: rate(cpu0, cpuSeconds(pid)),
      machineCores: rate(all0, machineBusySeconds()),
      peakRssMiB: peakRssMiB(pid),
    };
  };
}
