import type { Command } from "./command.js";

export const conserverCommand: Command = {
  async run(args) {
    // The plugins live beside the service; loaded only for this command.
    const { conserverCli } = (await import("../../plugins/conserver/cli.js")) as {
      conserverCli(args: string[]): Promise<number>;
    };
    return conserverCli(args);
  },
};
