import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { LoadResult, LoadSpec } from "./load-spec.js";

const LOADGEN = fileURLToPath(new URL("./loadgen.js", import.meta.url));

/** Runs one load phase in a separate load-generator process and returns its measurements. */
export function runLoadProcess(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LOADGEN], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      out += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`load generator exited with ${code}`));
      try {
        resolve(JSON.parse(out) as LoadResult);
      } catch (err) {
        reject(new Error(`load generator printed no result: ${(err as Error).message}`));
      }
    });
    child.stdin.end(JSON.stringify(spec));
  });
}
