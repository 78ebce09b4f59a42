import type { Command as Cli } from "commander";

// What every command is, apart from the table that names them all (commands.ts): the commands
// take their shape from here, so no command imports the table that loads it. The name and the
// summary a listing shows are the table's, known without loading the command.

/** Sets the exit code a command's action reached (nothing: a long-running command). */
export type Exit = (code: number | undefined) => void;

/** A CLI command: returns the exit code, or nothing for a long-running one. */
export interface Command {
  /**
   * The command declared for commander (arguments, options, help, action). Absent: the command
   * parses its own arguments and answers its own `--help` (bench, conserver).
   */
  declare?(exit: Exit): Cli;
  /** For a command that parses its own arguments: what `--help` prints (stdout, exit 0). */
  usage?: string;
  run(args: string[]): Promise<number | undefined>;
}
