import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";

/** What a spawned process (stdout and stderr piped) wrote to each, and its exit code once it closed. */
export function processOutput(
  child: ChildProcessByStdio<null, Readable, Readable>,
): Promise<{ code: number | null; out: string; err: string }> {
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, out, err }));
  });
}
