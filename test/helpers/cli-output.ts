import { vi } from "vitest";

/** Runs a CLI command in-process: its exit code and what it wrote to stdout and to stderr. */
export async function runCli(
  run: (args: string[]) => Promise<number | undefined>,
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  const lines: string[] = [];
  const errors: string[] = [];
  const out = vi.spyOn(process.stdout, "write").mockImplementation((c) => lines.push(String(c)) > 0);
  const err = vi.spyOn(process.stderr, "write").mockImplementation((c) => errors.push(String(c)) > 0);
  try {
    return { code: (await run(args)) ?? 0, out: lines.join(""), err: errors.join("") };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** Output sinks for a CLI that is handed them (the conserver CLI's `io`), and what it wrote to each. */
export function captureIo(): {
  io: { out: (t: string) => void; err: (t: string) => void };
  out: string[];
  err: string[];
} {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) }, out, err };
}
