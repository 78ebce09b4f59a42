#!/usr/bin/env -S node --max-semi-space-size=64
import { commands } from "./commands.js";

const [name, ...rest] = process.argv.slice(2);
const command = name ? commands[name] : undefined;
if (!command) {
  process.stderr.write(
    `usage: archivist <command> [options]\n\ncommands:\n${Object.entries(commands)
      .map(([n, c]) => `  ${n.padEnd(10)} ${c.summary}`)
      .join("\n")}\n`,
  );
  process.exit(name ? 2 : 0);
}
command.run(rest).then(
  (code) => {
    if (typeof code === "number") process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`archivist ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
