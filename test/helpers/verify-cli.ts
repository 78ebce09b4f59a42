import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { verifyCommand } from "../../src/cli/verify.js";
import { runCli } from "./cli-output.js";

/** `archivist verify`, run in-process: its exit code and what it wrote. */
export function verifyCli(args: string[]): ReturnType<typeof runCli> {
  return runCli((a) => verifyCommand.run(a), args);
}

/**
 * `archivist verify` of a record and its evidence as a user has them: written to files in `dir`
 * (record.json, and r.cose or p.tlog-proof) and checked, a receipt against the key set file
 * `keys`, a tlog-proof against the log key file `logKey`.
 */
export function verifyRecordFiles(
  dir: string,
  record: unknown,
  evidence: { receipt: Uint8Array; keys: string } | { tlogProof: string; logKey: string },
): ReturnType<typeof runCli> {
  const recordFile = join(dir, "record.json");
  writeFileSync(recordFile, JSON.stringify(record));
  if ("receipt" in evidence) {
    writeFileSync(join(dir, "r.cose"), evidence.receipt);
    return verifyCli([recordFile, "--receipt", join(dir, "r.cose"), "--keys", evidence.keys]);
  }
  writeFileSync(join(dir, "p.tlog-proof"), evidence.tlogProof);
  return verifyCli([recordFile, "--tlog-proof", join(dir, "p.tlog-proof"), "--log-key", evidence.logKey]);
}
