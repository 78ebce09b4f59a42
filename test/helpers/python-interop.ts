import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/*
 * Python clients and verifiers we did not write, run on Debian's python3 and its python3-*
 * packages, with the pure-Python sources no registry this project reaches has (pycose, the
 * DataTrails samples) taken from the git dirs of fetched snapshots, outside the repository.
 */
export const PYTHON = "/usr/bin/python3";
/** `test/interop/python`: our own scripts and the shims for modules Debian lacks. */
export const PYTHON_DIR = join(import.meta.dirname, "..", "interop", "python");

/** A snapshot's tree at `ref`, unpacked into a fresh directory. */
export function unpackSnapshot(gitDir: string, ref: string, label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${label}-src-`));
  const tar = execFileSync("git", ["--git-dir", gitDir, "archive", ref], { maxBuffer: 256 * 1024 * 1024 });
  execFileSync("tar", ["-x", "-C", dir], { input: tar });
  return dir;
}

/** The modules of `modules` that Debian's python3 cannot import (all of them without python3). */
export function missingPythonModules(modules: string[]): string[] {
  return modules.filter((m) => {
    try {
      execFileSync(PYTHON, ["-c", `import ${m}`], { stdio: "ignore" });
      return false;
    } catch {
      return true;
    }
  });
}

export interface PythonRun {
  code: number | null;
  out: string;
  err: string;
}

/** Runs python3 with `args`, asynchronously: the service it calls may run in this same process. */
export function runPython(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<PythonRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, opts);
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}
