import { Command as Cli, CommanderError } from "commander";
import type { Command, Exit } from "./command.js";
import { usageExit } from "./usage.js";

/** Makes commander throw instead of exiting, on a command and every subcommand. */
export function throwOnExit(cli: Cli): void {
  cli.exitOverride();
  for (const sub of cli.commands) throwOnExit(sub);
}

/**
 * A command declared with commander: `build` names its arguments and options, writes its help
 * and sets the action, which reports its exit code through `exit`. `run(args)` parses `args`
 * as the command's own (what `archivist <name> …` does, and what tests call).
 */
export function declared(build: (exit: Exit) => Cli): Command {
  return {
    declare: build,
    async run(args) {
      let code: number | undefined = 0;
      const cli = build((c) => {
        code = c;
      });
      throwOnExit(cli);
      try {
        await cli.parseAsync(args, { from: "user" });
      } catch (err) {
        const usage = usageExit(err);
        if (usage === undefined) throw err;
        // Commander has said what is wrong already.
        if (!(err instanceof CommanderError)) process.stderr.write(`archivist: ${(err as Error).message}\n`);
        return usage;
      }
      return code;
    },
  };
}

/** A command that only groups subcommands (`archivist keys …`, `archivist log …`), each built with the same `exit`. */
export function declaredGroup(
  name: string,
  description: string,
  subcommands: ReadonlyArray<(exit: Exit) => Cli>,
): Command {
  return declared((exit) => {
    const cli = new Cli(name).description(description);
    for (const sub of subcommands) cli.addCommand(sub(exit));
    return cli;
  });
}
