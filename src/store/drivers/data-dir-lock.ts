import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { StorageError } from "./db.js";

/** Held while a process has the embedded database open; `release` gives it up. */
export interface DataDirLock {
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Lock files this process holds. */
const held = new Set<string>();

// A process that exits without closing its database (the shutdown's deadline passed, a fatal
// error) gives its locks up too; a crash leaves them, and the next start takes them over.
process.once("exit", () => {
  for (const path of held) rmSync(path, { force: true });
});

/** The pid a lock file names; `undefined` when it was released meanwhile. */
function lockHolder(path: string): number | undefined {
  try {
    return Number(readFileSync(path, "utf8").trim());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/**
 * Takes `<dir>.lock` for this process. PGlite is PostgreSQL in one process with no shared
 * memory between processes: a second process opening the same directory (`archivist scan` or
 * `worker` beside a running `serve`) would write the same files unaware of the first and could
 * corrupt them. A lock left by a process that no longer runs (a crash) is taken over.
 */
export function lockDataDir(dir: string): DataDirLock {
  const path = `${dir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      held.add(path);
      return {
        release: () => {
          held.delete(path);
          rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const holder = lockHolder(path);
    if (holder === undefined) continue;
    // Our own pid in a lock this process does not hold is from an earlier life: a container's
    // service starts as the same pid (often 1) every time.
    const ours = holder === process.pid;
    if (ours ? held.has(path) : Number.isInteger(holder) && holder > 0 && alive(holder))
      throw new StorageError(
        `the embedded database in ${dir} is open in process ${holder}; PGlite serves one process at a time: stop that process, or run several against PostgreSQL (DATABASE_URL). If no archivist runs as ${holder}, remove ${path}.`,
      );
    rmSync(path, { force: true });
  }
  throw new StorageError(`could not take ${path}: another process took it at the same moment`);
}
