// The load generator runs as its own process (spawned by the bench) so that its CPU is not
// the server's: on two cores, measuring in-process would halve what the server can do.

import { runLoad } from "./load-runner.js";
import type { LoadSpec } from "./load-spec.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const spec = JSON.parse(await readStdin()) as LoadSpec;
const result = await runLoad(spec, (line) => process.stderr.write(`  [loadgen ${spec.label}] ${line}\n`));
process.stdout.write(`${JSON.stringify(result)}\n`);
