#!/usr/bin/env -S node --max-semi-space-size=64
// First: V8 settings apply before any other module allocates (`v8-tuning.ts`).
import "./v8-tuning.js";
import { runCli } from "./program.js";

// A reader that stops early (`archivist help verify | head`) closes the pipe: that is the
// reader's choice, not a failure of ours, so the command ends quietly as `cat` would.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });

// `npm run archivist -- …` runs us from the package's root; the files a user names are relative
// to where they typed the command (npm keeps that in INIT_CWD).
if (process.env.npm_lifecycle_event === "archivist" && process.env.INIT_CWD)
  process.chdir(process.env.INIT_CWD);

runCli(process.argv.slice(2)).then((code) => {
  if (typeof code !== "number") return;
  // A failed command ends now, whatever it left open (a listener, a client reconnecting).
  if (code !== 0) process.exit(code);
  process.exitCode = code;
});
