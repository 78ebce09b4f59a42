import { CommanderError } from "commander";
import { CodedError } from "../formats/coded-error.js";
import { USAGE_EXIT_CODE } from "../verify/index.js";

/** A command line that cannot run as typed: its message goes to stderr, the exit status is 64. */
export class UsageError extends CodedError<"USAGE"> {
  readonly code = "USAGE";
}

/**
 * The exit status of an error a command line raised: help and version are answers (0); every other
 * complaint of commander's or of node:util's parseArgs, and a UsageError, is a usage error (64);
 * anything else is not about the command line (undefined).
 */
export function usageExit(err: unknown): number | undefined {
  // Commander ends with 0 only when it answered (--help, help <command>, --version).
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
  if (err instanceof UsageError) return USAGE_EXIT_CODE;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_")) return USAGE_EXIT_CODE;
  return undefined;
}
