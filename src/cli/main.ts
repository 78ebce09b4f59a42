#!/usr/bin/env -S node --max-semi-space-size=64
import { runCli } from "./program.js";

runCli(process.argv.slice(2)).then((code) => {
  if (typeof code === "number") process.exitCode = code;
});
