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
